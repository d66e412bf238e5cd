import {
  ArrayMinSize,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Min,
  validateSync,
} from 'class-validator';
import { ValidationError } from './errors';
import {
  AsGiven,
  createValidationPipe,
  flattenValidationErrors,
  Nested,
  UniqueItems,
} from './validation';

class RetryDto {
  @IsInt()
  @Min(1)
  maxAttempts: number;
}

class StepDto {
  @IsString()
  name: string;

  @IsString()
  handler: string;

  @IsOptional()
  @Nested(() => RetryDto)
  retry?: RetryDto;
}

class DefinitionDto {
  @IsString()
  @Length(1, 200)
  name: string;

  @ArrayMinSize(1)
  @Nested(() => StepDto, { each: true })
  steps: StepDto[];
}

const pipe = createValidationPipe();

async function rejectionOf(body: unknown): Promise<ValidationError> {
  try {
    await pipe.transform(body, { type: 'body', metatype: DefinitionDto });
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error('expected the pipe to reject the body');
}

const validStep = { name: 'a', handler: 'noop' };

describe('flattenValidationErrors', () => {
  it('names top-level fields by their property', () => {
    const dto = Object.assign(new RetryDto(), { maxAttempts: 0 });
    expect(flattenValidationErrors(validateSync(dto))).toEqual([
      { field: 'maxAttempts', message: 'maxAttempts must not be less than 1' },
    ]);
  });

  it('names array elements and their fields like steps[2].handler', async () => {
    const err = await rejectionOf({
      name: 'flow',
      steps: [validStep, validStep, { name: 'c', handler: 42 }],
    });
    expect(err.details).toEqual({
      errors: [{ field: 'steps[2].handler', message: 'handler must be a string' }],
    });
  });

  it('names fields of objects nested in array elements like steps[0].retry.maxAttempts', async () => {
    const err = await rejectionOf({
      name: 'flow',
      steps: [{ ...validStep, retry: { maxAttempts: 0 } }],
    });
    expect(err.details).toEqual({
      errors: [{ field: 'steps[0].retry.maxAttempts', message: expect.any(String) }],
    });
  });

  it('lists every broken rule of every field', async () => {
    const err = await rejectionOf({ name: '', steps: [{ handler: 'x' }, { name: 'b' }] });
    const fields = (err.details?.errors as Array<{ field: string }>).map((e) => e.field);
    expect(fields).toEqual(['name', 'steps[0].name', 'steps[1].handler']);
  });
});

describe('createValidationPipe', () => {
  it('returns an instance of the DTO for a valid body', async () => {
    const value: unknown = await pipe.transform(
      { name: 'flow', steps: [validStep] },
      { type: 'body', metatype: DefinitionDto },
    );
    expect(value).toBeInstanceOf(DefinitionDto);
    expect((value as DefinitionDto).steps[0]).toBeInstanceOf(StepDto);
  });

  it('rejects unknown fields, also nested ones, as "is not allowed"', async () => {
    const err = await rejectionOf({
      name: 'flow',
      steps: [{ ...validStep, colour: 'red' }],
      extra: true,
    });
    const errors = err.details?.errors as unknown[];
    expect(errors).toHaveLength(2);
    expect(errors).toEqual(
      expect.arrayContaining([
        { field: 'steps[0].colour', message: 'is not allowed' },
        { field: 'extra', message: 'is not allowed' },
      ]),
    );
  });

  it('answers 400 VALIDATION_ERROR with the first problem in the message', async () => {
    const err = await rejectionOf({ name: 'flow', steps: [] });
    expect(err.status).toBe(400);
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.message).toBe('steps: steps must contain at least 1 elements');
  });

  it('counts the further problems in the message', async () => {
    const err = await rejectionOf({});
    expect(err.message).toMatch(/^name: .* \(and 2 more\)$/);
  });

  it('never converts types implicitly', async () => {
    const err = await rejectionOf({ name: 7, steps: [validStep] });
    expect(err.details).toEqual({
      errors: [
        {
          field: 'name',
          message:
            'name must be longer than or equal to 1 and shorter than or equal to 200 characters',
        },
        { field: 'name', message: 'name must be a string' },
      ],
    });
  });
});

class OpenDto {
  @IsString()
  name: string;

  @IsOptional()
  @IsObject()
  @AsGiven()
  data?: Record<string, unknown>;

  @IsOptional()
  @Nested(() => RetryDto)
  retry?: RetryDto;
}

describe('closed schemas and open data', () => {
  const SHADOWED = [
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'valueOf',
  ];

  async function errorsOf(body: unknown): Promise<unknown> {
    try {
      await pipe.transform(body, { type: 'body', metatype: OpenDto });
    } catch (err) {
      if (err instanceof ValidationError) return err.details?.errors;
      throw err;
    }
    throw new Error('expected the pipe to reject the body');
  }

  it.each(SHADOWED)(
    'refuses %s as an unknown field, at the top and in a nested DTO',
    async (key) => {
      const top = JSON.parse(`{"name": "a", "${key}": {"x": 1}}`) as unknown;
      expect(await errorsOf(top)).toEqual([{ field: key, message: 'is not allowed' }]);
      const nested = JSON.parse(
        `{"name": "a", "retry": {"maxAttempts": 1, "${key}": 1}}`,
      ) as unknown;
      expect(await errorsOf(nested)).toEqual([
        { field: `retry.${key}`, message: 'is not allowed' },
      ]);
    },
  );

  it('keeps an open object exactly as given: every key its own, no prototype changed', async () => {
    const text =
      '{"name": "a", "data": {"__proto__": {"polluted": true}, "constructor": {"b": 2}, ' +
      '"prototype": 3, "toString": "s", "deep": [{"__proto__": 1, "constructor": "x"}]}}';
    const body = JSON.parse(text) as Record<string, unknown>;
    const dto = (await pipe.transform(body, { type: 'body', metatype: OpenDto })) as OpenDto;
    expect(dto).toBeInstanceOf(OpenDto);
    expect(dto.data).toBe(body.data);
    expect(JSON.stringify(dto.data)).toBe(JSON.stringify(JSON.parse(text).data));
    expect(Object.keys(dto.data!)).toEqual([
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      'deep',
    ]);
    expect(Object.getPrototypeOf(dto.data)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('still validates an open field as an object', async () => {
    expect(await errorsOf({ name: 'a', data: [1] })).toEqual([
      { field: 'data', message: 'data must be an object' },
    ]);
  });

  it('leaves the request body it was given untouched', async () => {
    const body = JSON.parse('{"name": "a", "__proto__": 1}') as Record<string, unknown>;
    await errorsOf(body);
    expect(Object.keys(body)).toEqual(['name', '__proto__']);
  });
});

describe('UniqueItems', () => {
  class TagsDto {
    @UniqueItems({ message: 'tags must not contain duplicates' })
    tags: unknown;
  }
  const problems = (tags: unknown): string[] =>
    validateSync(Object.assign(new TagsDto(), { tags })).flatMap((e) =>
      Object.values(e.constraints ?? {}),
    );

  it('refuses an array holding a value twice, strings or numbers', () => {
    expect(problems(['a', 'b', 'a'])).toEqual(['tags must not contain duplicates']);
    expect(problems([1, 2, 1])).toEqual(['tags must not contain duplicates']);
  });

  it('passes distinct values, a large array of them and values that are not arrays', () => {
    expect(problems(['a', 'b', 1, '1'])).toEqual([]);
    expect(problems(Array.from({ length: 100_000 }, (_, i) => `v${i}`))).toEqual([]);
    expect(problems('a,a')).toEqual([]);
  });
});
