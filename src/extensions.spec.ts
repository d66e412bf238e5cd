import { Injectable, Module } from '@nestjs/common';
import { describeExtension, extensionModule } from './extensions';

@Injectable()
class GreetHandler {}

@Module({ providers: [GreetHandler] })
class GreetingModule {}

@Module({ imports: [GreetingModule] })
class ImportsOnlyModule {}

describe('extensionModule', () => {
  it('takes the default export of a compiled ES module or TypeScript file', () => {
    expect(extensionModule({ __esModule: true, default: GreetingModule })).toBe(GreetingModule);
  });

  it('takes module.exports itself when it is the module (CommonJS without a default)', () => {
    expect(extensionModule(GreetingModule)).toBe(GreetingModule);
  });

  it('takes a module that only imports others', () => {
    expect(extensionModule({ default: ImportsOnlyModule })).toBe(ImportsOnlyModule);
  });

  it('takes a dynamic module', () => {
    const dynamic = { module: GreetingModule, providers: [GreetHandler] };
    expect(extensionModule({ default: dynamic })).toBe(dynamic);
  });

  it.each<[string, unknown]>([
    ['nothing', {}],
    ['named exports only', { GreetingModule }],
    ['an undefined default', { default: undefined }],
    ['a class that is not a module', { default: GreetHandler }],
    ['a plain object', { default: { providers: [GreetHandler] } }],
    ['null', null],
    ['a string', 'GreetingModule'],
  ])('finds no module in %s', (_, exported) => {
    expect(extensionModule(exported)).toBeUndefined();
  });
});

describe('describeExtension', () => {
  it("names the setting's entry and the module's class", () => {
    const file = '/srv/extensions/greeting/index.js';
    expect(describeExtension({ name: './greeting', file, module: GreetingModule })).toBe(
      './greeting (GreetingModule)',
    );
    expect(
      describeExtension({ name: '@acme/greeting', file, module: { module: GreetingModule } }),
    ).toBe('@acme/greeting (GreetingModule)');
  });
});
