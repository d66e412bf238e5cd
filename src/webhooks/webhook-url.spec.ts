import { isPrivateIpLiteralUrl, webhookUrlProblem } from './webhook-url';

describe('webhookUrlProblem', () => {
  it.each([
    'https://example.com/hooks',
    'https://example.com:8443/a?b=c',
    'https://203.0.113.10/x',
    'https://[2001:db8::1]/x',
  ])('accepts %s', (url) => {
    expect(webhookUrlProblem(url)).toBeUndefined();
  });

  it.each([
    ['http://example.com/hooks', 'url must use https'],
    ['/relative/path', 'url must be a valid absolute URL'],
    ['not a url', 'url must not contain whitespace'],
    ['https://', 'url must be a valid absolute URL'],
    ['https://exa mple.com', 'url must not contain whitespace'],
    ['https://user:pass@example.com/', 'url must not contain credentials'],
    ['https://token@example.com/', 'url must not contain credentials'],
    ['ftp://example.com/', 'url must use https'],
    ['', 'url must not be empty'],
  ])('refuses %s: %s', (url, message) => {
    expect(webhookUrlProblem(url)).toBe(message);
  });

  it('refuses non-strings and URLs over 2048 characters', () => {
    expect(webhookUrlProblem(42)).toBe('url must be a string');
    expect(webhookUrlProblem(`https://example.com/${'a'.repeat(2048)}`)).toBe(
      'url must be at most 2048 characters',
    );
  });
});

describe('isPrivateIpLiteralUrl', () => {
  it.each([
    'https://127.0.0.1/',
    'https://10.1.2.3/',
    'https://169.254.169.254/latest',
    'https://[::1]/',
    'https://[::ffff:192.168.0.1]/',
    'https://[::ffff:7f00:1]/',
    'https://[::127.0.0.1]/',
    'https://[64:ff9b::8.8.8.8]/',
    'https://[64:ff9b:1::a00:1]/',
  ])('is true for %s', (url) => {
    expect(isPrivateIpLiteralUrl(url)).toBe(true);
  });

  it.each([
    'https://203.0.113.10/',
    'https://[::ffff:8.8.8.8]/',
    'https://localhost/',
    'https://example.com/',
  ])('is false for %s (names are checked when resolved)', (url) => {
    expect(isPrivateIpLiteralUrl(url)).toBe(false);
  });
});
