import { APICallError, JSONParseError, TypeValidationError } from 'ai';
import {
  PROVIDER_ERROR_MAX_CHARS,
  providerErrorMessage,
  trimProviderText,
} from './provider-errors';

const KEY = 'sk-configured-0123456789';

function apiError(fields: Partial<ConstructorParameters<typeof APICallError>[0]>): APICallError {
  return new APICallError({
    message: 'Bad request',
    url: 'https://api.example.com/v1/chat/completions?key=sk-in-the-url-123456',
    requestBodyValues: { messages: [{ role: 'user', content: 'the tenant prompt' }] },
    responseHeaders: { 'x-request-id': 'req_123' },
    responseBody: `{"error":{"message":"Bad request"},"echo":"${KEY}"}`,
    ...fields,
  });
}

describe('providerErrorMessage', () => {
  it.each<[string, unknown, string]>([
    ['the status and the provider message', apiError({ statusCode: 400 }), 'HTTP 400: Bad request'],
    [
      'the status text when the body was not the provider error JSON',
      apiError({
        statusCode: 502,
        message: 'Bad Gateway',
        responseBody: `<html>${'x'.repeat(5000)}`,
      }),
      'HTTP 502: Bad Gateway',
    ],
    [
      'a network failure by its code, without the address',
      apiError({
        message: 'Cannot connect to API: connect ECONNREFUSED 10.1.2.3:443',
        cause: Object.assign(new Error('connect ECONNREFUSED 10.1.2.3:443'), {
          code: 'ECONNREFUSED',
        }),
      }),
      'could not reach the provider (ECONNREFUSED)',
    ],
    [
      'a network failure without a code',
      apiError({ message: 'Cannot connect to API: socket hang up' }),
      'could not reach the provider',
    ],
    [
      'an unreadable answer without quoting it',
      new JSONParseError({
        text: `{"secret": "${KEY}", ${'junk'.repeat(100)}`,
        cause: new Error('x'),
      }),
      'the provider answered with a response that could not be read',
    ],
    [
      'an answer of the wrong shape without quoting it',
      new TypeValidationError({ value: { leaked: KEY }, cause: new Error('x') }),
      'the provider answered with a response that could not be read',
    ],
    ['a plain error by its message, without its stack', new Error('boom'), 'boom'],
    ['a thrown string', 'went wrong', 'went wrong'],
  ])('gives %s', (_case, err, expected) => {
    expect(providerErrorMessage(err, [KEY])).toBe(expected);
  });

  it.each([
    ['the configured key', `Incorrect API key provided: ${KEY}.`],
    ['an OpenAI-style key', 'Incorrect API key provided: sk-proj-AbC123xyz789QQ.'],
    ['an Anthropic-style key', 'invalid x-api-key sk-ant-api03-abcdefghijklmnop'],
    ['a bearer token', 'upstream said: Authorization: Bearer abc.def.ghi rejected'],
    ['a key=value credential', 'proxy error api_key=abcdef123456 token: "zzz999"'],
    ['one of our own keys', 'echo svc_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['a long opaque token', `session ${'Q'.repeat(20)}${'7'.repeat(20)} expired`],
    ['an AWS access key', 'signature for AKIAIOSFODNN7EXAMPLE invalid'],
  ])('removes %s from the provider message', (_case, message) => {
    const text = providerErrorMessage(apiError({ statusCode: 401, message }), [KEY]);
    expect(text).toMatch(/^HTTP 401: /);
    expect(text).toContain('[redacted]');
    for (const secret of [
      KEY,
      'sk-proj-AbC123xyz789QQ',
      'sk-ant-api03',
      'abc.def.ghi',
      'abcdef123456',
      'zzz999',
      'svc_AAAA',
      'QQQQQQQQQQ',
      'AKIAIOSFODNN7EXAMPLE',
    ]) {
      expect(text).not.toContain(secret);
    }
  });

  it('never carries the request URL, body or headers of the call', () => {
    const text = providerErrorMessage(apiError({ statusCode: 400 }), [KEY]);
    expect(text).not.toMatch(/api\.example\.com|tenant prompt|req_123|sk-in-the-url/);
  });

  it('replaces URLs and IP addresses inside the provider message', () => {
    const text = trimProviderText(
      'see https://platform.example.com/account/api-keys?k=1 or call 10.0.0.5:8080 directly',
    );
    expect(text).toBe('see [url] or call [address] directly');
  });

  it.each([
    ['long junk', 'x '.repeat(10_000)],
    ['one long line of short words', `Error: ${'no, '.repeat(20_000)}`],
    ['junk after a short message', `Rate limit reached. ${'{"dump": 1}, '.repeat(1000)}`],
  ])('caps %s at PROVIDER_ERROR_MAX_CHARS', (_case, message) => {
    const text = providerErrorMessage(apiError({ statusCode: 429, message }));
    expect(text.length).toBeLessThanOrEqual(PROVIDER_ERROR_MAX_CHARS);
    expect(text.endsWith('…')).toBe(true);
  });

  it('flattens control characters and newlines, drops stack lines, and never cuts a surrogate pair', () => {
    expect(
      trimProviderText('line one\r\n\tline two\u0000\n    at Object.<anonymous> (/x.js:1:1)'),
    ).toBe('line one line two');
    const emoji = `${'a '.repeat((PROVIDER_ERROR_MAX_CHARS - 2) / 2)}😀😀😀`;
    const text = trimProviderText(emoji);
    expect(text).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    expect(text.endsWith('…')).toBe(true);
  });

  it('examines only the start of a huge text, whose shape would make the URL pattern quadratic', () => {
    // A provider (or a proxy) may echo the prompt: 2 MB of `a.a.a.` took minutes before the cut.
    const text = trimProviderText(`Bad request: ${'a.'.repeat(1_000_000)}`);
    expect(text.startsWith('Bad request: a.a.')).toBe(true);
    expect(text.length).toBeLessThanOrEqual(PROVIDER_ERROR_MAX_CHARS);
  });

  it('says something when nothing is left', () => {
    expect(trimProviderText('   ')).toBe('the provider call failed');
  });
});
