import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { IsOptional, IsString, Length } from 'class-validator';
import { externalEventStepType } from '../step-types/external-event/external-event.step-type';
import { waitStepType } from '../step-types/wait/wait.step-type';
import { BaseStepDto } from './step-dtos';
import type { StepExecutor, StepOutcome } from './step-executor';
import type { StepTypeDescriptor } from './step-type';
import { StepTypeRegistry } from './step-type.registry';
import { StepTypesModule } from './step-types.module';
import { validateSteps } from './validate-steps';

class PlainStepDto {
  @IsString() type: string;
  @IsString() name: string;
}

@Injectable()
class EchoExecutor implements StepExecutor {
  async execute(): Promise<StepOutcome> {
    return { kind: 'complete', output: {} };
  }
}

/** A dependency the greeting executor gets from its descriptor's imports. */
@Injectable()
class Greeter {
  greet(): string {
    return 'hello';
  }
}

@Module({ providers: [Greeter], exports: [Greeter] })
class GreeterModule {}

@Injectable()
class GreetingExecutor implements StepExecutor {
  constructor(readonly greeter: Greeter) {}

  async execute(): Promise<StepOutcome> {
    return { kind: 'complete', output: { text: this.greeter.greet() } };
  }
}

@Injectable()
class SilentExecutor {}

function stepType(type: string, extra: Partial<StepTypeDescriptor> = {}): StepTypeDescriptor {
  return { type, dto: PlainStepDto, defaultMaxAttempts: 1, executor: EchoExecutor, ...extra };
}

async function boot(
  imports: NonNullable<Parameters<typeof Test.createTestingModule>[0]['imports']>,
) {
  const moduleRef = await Test.createTestingModule({ imports }).compile();
  try {
    await moduleRef.init();
  } catch (err) {
    await moduleRef.close();
    throw err;
  }
  return moduleRef;
}

describe('StepTypeRegistry', () => {
  it('lists the types in registration order and answers each descriptor and executor', async () => {
    const greeting = stepType('greeting', {
      executor: GreetingExecutor,
      imports: [GreeterModule],
      defaultMaxAttempts: 3,
    });
    const moduleRef = await boot([
      StepTypesModule.register([stepType('b'), greeting, stepType('a', { ownsTimeout: true })]),
    ]);
    const registry = moduleRef.get(StepTypeRegistry);
    expect(registry.types()).toEqual(['b', 'greeting', 'a']);
    expect(registry.descriptors().map((d) => d.type)).toEqual(['b', 'greeting', 'a']);
    expect(registry.get('greeting')).toBe(greeting);
    expect(registry.get('a')?.ownsTimeout).toBe(true);
    expect(registry.get('missing')).toBeUndefined();
    expect(registry.defaultMaxAttempts('greeting')).toBe(3);
    expect(registry.defaultMaxAttempts('missing')).toBe(1);
    expect(registry.executorFor('b')).toBeInstanceOf(EchoExecutor);
    const executor = registry.executorFor('greeting');
    expect(executor).toBeInstanceOf(GreetingExecutor);
    expect((executor as GreetingExecutor).greeter).toBeInstanceOf(Greeter);
    expect(registry.executorFor('missing')).toBeUndefined();
    await moduleRef.close();
  });

  it('takes the types an extension module registers from its own module, after the earlier ones', async () => {
    @Module({ imports: [StepTypesModule.register([stepType('notify')])] })
    class NotifyExtensionModule {}

    const moduleRef = await boot([
      StepTypesModule.register([stepType('task'), stepType('wait')]),
      NotifyExtensionModule,
    ]);
    const registry = moduleRef.get(StepTypeRegistry);
    expect(registry.types()).toEqual(['task', 'wait', 'notify']);
    expect(registry.executorFor('notify')).toBeInstanceOf(EchoExecutor);
    await moduleRef.close();
  });

  it('fails the boot when a type is registered twice, in one list or in two modules', async () => {
    await expect(
      boot([StepTypesModule.register([stepType('task'), stepType('wait'), stepType('task')])]),
    ).rejects.toThrow('step type "task" is registered twice');

    @Module({ imports: [StepTypesModule.register([stepType('wait')])] })
    class ExtensionModule {}
    await expect(
      boot([StepTypesModule.register([stepType('task'), stepType('wait')]), ExtensionModule]),
    ).rejects.toThrow('step type "wait" is registered twice');
  });

  it("fails the boot when the executor's dependencies cannot be resolved, naming the executor", async () => {
    await expect(
      boot([StepTypesModule.register([stepType('greeting', { executor: GreetingExecutor })])]),
    ).rejects.toThrow(/can't resolve dependencies of the GreetingExecutor/);
  });

  it('refuses an executor that is not a class (an import cycle leaves it undefined)', () => {
    const broken = stepType('broken', { executor: undefined as unknown as typeof EchoExecutor });
    expect(() => StepTypesModule.register([broken])).toThrow(
      'step type "broken": its executor is undefined, not a class (an import cycle can leave it undefined)',
    );
  });

  it('fails the boot when the executor has no execute method', async () => {
    const silent = stepType('silent', { executor: SilentExecutor as typeof EchoExecutor });
    await expect(boot([StepTypesModule.register([silent])])).rejects.toThrow(
      'step type "silent": its executor SilentExecutor has no execute method',
    );
  });

  it('validates the steps of a registered extra type with its DTO, its check and its jump fields', async () => {
    class NotifyStepDto extends BaseStepDto {
      @IsString() @Length(1, 100) channel: string;
      @IsOptional() @IsString() text?: string;
      @IsOptional() @IsString() onFailure?: string;
    }
    const notifyStepType = stepType('notify', {
      dto: NotifyStepDto,
      check(step, add) {
        if (step.channel === 'sms' && typeof step.text === 'string' && step.text.length > 160) {
          add('text', 'an sms holds at most 160 characters');
        }
      },
      jumpFields: ['onFailure'],
    });
    const moduleRef = await boot([
      StepTypesModule.register([waitStepType, externalEventStepType, notifyStepType]),
    ]);
    const stepTypes = moduleRef.get(StepTypeRegistry).descriptors();
    const wait = { type: 'wait', name: 'pause', durationMs: 10 };
    const notify = { type: 'notify', name: 'tell', channel: 'sms', text: 'hi', onFailure: 'pause' };
    expect(validateSteps([wait, notify], stepTypes).errors).toEqual([]);
    expect(
      validateSteps(
        [
          wait,
          { ...notify, text: 'x'.repeat(161), onFailure: 'nowhere', priority: 1 },
          { type: 'notify', name: 'again' },
          { type: 'task', name: 'work', handler: 'noop' },
        ],
        stepTypes,
      ).errors,
    ).toEqual([
      { field: 'steps[1].priority', message: 'is not allowed' },
      { field: 'steps[1].text', message: 'an sms holds at most 160 characters' },
      {
        field: 'steps[2].channel',
        message: 'channel must be longer than or equal to 1 characters',
      },
      { field: 'steps[2].channel', message: 'channel must be a string' },
      { field: 'steps[3].type', message: 'must be one of wait, external_event, notify' },
      { field: 'steps[1].onFailure', message: 'no step named "nowhere"' },
    ]);
    await moduleRef.close();
  });
});
