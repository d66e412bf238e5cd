import { PartialType } from '@nestjs/swagger';
import { IsInt, IsString, MetadataStorage, Min, validateSync } from 'class-validator';
import { memoizeValidationMetadata } from './validation-metadata';
import { validateDto } from './validation';

class Base {
  @IsString()
  name: string;
}

class Child extends Base {
  @IsInt({ groups: ['strict'] })
  @Min(1)
  count: number;
}

const propertiesOf = (storage: MetadataStorage, target: object, groups?: string[]) =>
  storage
    .getTargetValidationMetadatas(target as new () => object, '', false, false, groups)
    .map((m) => `${m.propertyName}:${m.name ?? m.type}`)
    .sort();

describe('memoizeValidationMetadata', () => {
  it("answers a class's own and inherited rules as class-validator does, per set of groups", () => {
    const plain = new MetadataStorage();
    const memoized = new MetadataStorage();
    for (const storage of [plain, memoized]) {
      for (const [target, propertyName, name, groups] of [
        [Base, 'name', 'isString', undefined],
        [Child, 'count', 'isInt', ['strict']],
        [Child, 'count', 'min', undefined],
      ] as const) {
        storage.addValidationMetadata({
          type: 'customValidation',
          name,
          target,
          propertyName,
          groups: [...(groups ?? [])],
          constraintCls: Object,
          constraints: [],
          validationTypeOptions: undefined,
          each: false,
          context: undefined,
          always: undefined,
          message: '',
        });
      }
    }
    memoizeValidationMetadata(memoized);
    for (const groups of [undefined, ['strict'], ['other']]) {
      for (const target of [Base, Child]) {
        const expected = propertiesOf(plain, target, groups);
        expect(propertiesOf(memoized, target, groups)).toEqual(expected);
        // Asked again: the kept answer, the same one.
        expect(propertiesOf(memoized, target, groups)).toEqual(expected);
      }
    }
    // The subclass inherits its parent's rule; a group selects its own rules only.
    expect(propertiesOf(memoized, Child)).toEqual(['count:isInt', 'count:min', 'name:isString']);
    expect(propertiesOf(memoized, Child, ['strict'])).toEqual(['count:isInt']);
  });

  it('forgets its answers when a rule is added after a class was validated', () => {
    class Late {
      @IsString()
      title: string;
    }
    expect(validateSync(Object.assign(new Late(), { title: 'a' }))).toEqual([]);
    // A rule added afterwards, as a decorator applied at run time or a mapped type's copy would.
    IsInt()(Late.prototype, 'title');
    expect(validateSync(Object.assign(new Late(), { title: 'a' }))).toHaveLength(1);
    class LatePartial extends PartialType(Late) {}
    expect(validateDto(LatePartial, { title: 'a' }).errors).toEqual([
      { field: 'title', message: 'title must be an integer number' },
    ]);
    expect(validateDto(LatePartial, {}).errors).toEqual([]);
  });
});
