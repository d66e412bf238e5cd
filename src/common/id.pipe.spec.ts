import { Body, Controller, type INestApplication, Post, Query } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { IsString } from 'class-validator';
import request from 'supertest';
import { NotFoundError } from './errors';
import { EnvelopeExceptionFilter } from './exception.filter';
import { IdParam, IdPipe } from './id.pipe';
import { createValidationPipe } from './validation';

describe('IdPipe', () => {
  const pipe = new IdPipe('workflow run');

  it.each([
    '0198b2a4-5c3e-7d1f-9a2b-3c4d5e6f7a8b',
    'f47ac10b-58cc-4372-a567-0e02b2c3d479',
    'F47AC10B-58CC-4372-A567-0E02B2C3D479',
    '00000000-0000-0000-0000-000000000000',
  ])('passes the UUID %s through unchanged', (id) => {
    expect(pipe.transform(id)).toBe(id);
  });

  it.each<[string, unknown]>([
    ['a word', 'not-a-uuid'],
    ['a number in a string', '12345'],
    ['a UUID with trailing characters', 'f47ac10b-58cc-4372-a567-0e02b2c3d479x'],
    ['a UUID without hyphens', 'f47ac10b58cc4372a5670e02b2c3d479'],
    ['a UUID in braces', '{f47ac10b-58cc-4372-a567-0e02b2c3d479}'],
    ['SQL', "1' OR '1'='1"],
    ['an empty string', ''],
    ['undefined', undefined],
    ['a number', 12345],
    ['an array of a UUID', ['f47ac10b-58cc-4372-a567-0e02b2c3d479']],
  ])('answers %s as the resource not found: 404 NOT_FOUND', (_case, value) => {
    let thrown: unknown;
    try {
      pipe.transform(value);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(NotFoundError);
    expect(thrown).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
      message: 'workflow run not found',
    });
  });
});

class SignalDto {
  @IsString()
  signalType: string;
}

@Controller('things')
class ThingsController {
  @Post(':id')
  touch(@IdParam('thing') id: string, @Body() dto: SignalDto, @Query('q') q?: string): object {
    return { id, signalType: dto.signalType, q };
  }

  // The body declared before the id, which controllers do not do: see below.
  @Post(':id/signal')
  signal(@Body() dto: SignalDto, @IdParam('thing') id: string): object {
    return { id, signalType: dto.signalType };
  }

  @Post(':id/parts/:partId')
  touchPart(
    @IdParam('thing') id: string,
    @IdParam('thing part', 'partId', { name: 'id', resource: 'thing' }) partId: string,
    @Body() dto: SignalDto,
  ): object {
    return { id, partId, signalType: dto.signalType };
  }
}

/** On a real Nest router, with the service's global validation pipe and exception filter. */
describe('IdParam and IdParams', () => {
  let app: INestApplication;
  const id = 'f47ac10b-58cc-4372-a567-0e02b2c3d479';
  const partId = '0198b2a4-5c3e-7d1f-9a2b-3c4d5e6f7a8b';

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ controllers: [ThingsController] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    app.useGlobalPipes(createValidationPipe());
    app.useGlobalFilters(new EnvelopeExceptionFilter());
    await app.init();
  });
  afterAll(async () => {
    await app?.close();
  });

  const post = (path: string, body: object) =>
    request(app.getHttpServer() as Parameters<typeof request>[0])
      .post(path)
      .send(body);

  it('hands well-formed ids to the handler', async () => {
    const one = await post(`/things/${id}?q=x`, { signalType: 's' });
    expect(one.status).toBe(201);
    expect(one.body).toEqual({ id, signalType: 's', q: 'x' });
    const both = await post(`/things/${id}/parts/${partId}`, { signalType: 's' });
    expect(both.status).toBe(201);
    expect(both.body).toEqual({ id, partId, signalType: 's' });
  });

  it.each([
    ['the id', '/things/nope', 'thing not found'],
    ['the id declared after the body', '/things/nope/signal', 'thing not found'],
    ['the outer id', `/things/nope/parts/${partId}`, 'thing not found'],
    ['the inner id', `/things/${id}/parts/nope`, 'thing part not found'],
    ['both ids: the outer one is answered', '/things/nope/parts/nope', 'thing not found'],
  ])(
    'answers a malformed value of %s with 404 naming its resource',
    async (_case, path, message) => {
      const res = await post(path, { signalType: 's' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message } });
    },
  );

  it.each(['/things/nope?q=x', '/things/nope/parts/nope'])(
    'answers a bad body before a malformed id declared before it, on %s (400, not 404)',
    async (path) => {
      for (const body of [{}, { signalType: 's', extra: 1 }]) {
        const res = await post(path, body);
        expect(res.status).toBe(400);
        expect(res.body.error.code).toBe('VALIDATION_ERROR');
      }
    },
  );

  it('answers a malformed id first when it is declared after the body: why ids are declared first', async () => {
    const res = await post('/things/nope/signal', {});
    expect(res.status).toBe(404);
  });
});
