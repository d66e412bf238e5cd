import { Inject } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { OutboundRequestError, safeRequest } from '../../common/safe-http';
import { timerDelay } from '../../common/timers';
import { NonRetryableError } from '../../steps/step-executor';
import { TaskHandler, type TaskHandlerContext, type TaskHandlerImpl } from '../task-handler';

const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_RESPONSE_BYTES = 1024 * 1024;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'];

/**
 * `config.url/method/headers/body` (body objects are sent as JSON). Output `{status, headers, body}`,
 * the body parsed when it is JSON. A non-2xx answer fails the attempt. Private addresses are refused
 * unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true; redirects are not followed; bodies over 1 MiB fail.
 */
@TaskHandler('http')
export class HttpHandler implements TaskHandlerImpl {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async handle(ctx: TaskHandlerContext): Promise<Record<string, unknown>> {
    const { url, method = 'GET', headers = {}, body, timeoutMs } = ctx.config;
    if (typeof url !== 'string') throw new NonRetryableError('http needs config.url (a string)');
    if (typeof method !== 'string' || !METHODS.includes(method.toUpperCase())) {
      throw new NonRetryableError(`config.method must be one of ${METHODS.join(', ')}`);
    }
    if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
      throw new NonRetryableError('config.headers must be an object of strings');
    }
    const sendHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers as Record<string, unknown>))
      sendHeaders[k] = String(v);
    let payload: string | undefined;
    if (body !== undefined && body !== null) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      if (
        typeof body !== 'string' &&
        !Object.keys(sendHeaders).some((h) => h.toLowerCase() === 'content-type')
      ) {
        sendHeaders['content-type'] = 'application/json';
      }
    }
    try {
      const res = await safeRequest({
        url,
        method: method.toUpperCase(),
        headers: sendHeaders,
        body: payload,
        // A templated value is known only now: clamped to what a timer can wait, not refused.
        timeoutMs:
          typeof timeoutMs === 'number' && timeoutMs > 0
            ? timerDelay(timeoutMs)
            : DEFAULT_TIMEOUT_MS,
        maxResponseBytes: MAX_RESPONSE_BYTES,
        onOversize: 'error',
        allowPrivateNetworks: this.config.webhooks.allowPrivateNetworks,
        signal: ctx.signal,
      });
      const text = res.body.toString('utf8');
      let parsed: unknown = text;
      if ((res.headers['content-type'] ?? '').includes('json')) {
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
      }
      if (res.status < 200 || res.status >= 300) {
        throw new Error(`HTTP ${res.status} from ${url}`);
      }
      return { status: res.status, headers: res.headers, body: parsed };
    } catch (err) {
      if (
        err instanceof OutboundRequestError &&
        (err.kind === 'blocked' || err.kind === 'invalid-url')
      ) {
        throw new NonRetryableError(err.message);
      }
      throw err;
    }
  }
}
