/**
 * The console's only way to the API: the typed client of client/ (generated from /openapi.json), on the
 * page's own origin. No key is ever held here: the browser sends the HttpOnly session cookie by itself.
 * A 401 on any call means the session is gone (expired, signed out elsewhere, key revoked): the app
 * then sends the user to sign-in, keeping the page they were on (see app.tsx).
 */
import { createApiClient, type ErrorEnvelope } from '../../client';

export const api = createApiClient({ baseUrl: window.location.origin });

const unauthorizedListeners = new Set<() => void>();

/** Called on every 401 of a call other than the session's own ones. */
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

api.use({
  onResponse({ response, request }) {
    if (
      response.status === 401 &&
      !new URL(request.url).pathname.startsWith('/v1/console/session')
    ) {
      for (const listener of unauthorizedListeners) listener();
    }
    return undefined;
  },
});

/** An error answer of the API (its envelope), or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

const UNREACHABLE = 'The service could not be reached. Check the connection and try again.';

async function settle<T>(call: Promise<Result<T>>): Promise<Result<T>> {
  try {
    return await call;
  } catch {
    throw new ApiError(0, 'NETWORK_ERROR', UNREACHABLE);
  }
}

function toApiError(result: Result<unknown>): ApiError {
  const error = (result.error as Partial<ErrorEnvelope> | undefined)?.error;
  const status = result.response.status;
  return new ApiError(
    status,
    error?.code ?? `HTTP_${status}`,
    error?.message ?? `The service answered ${status}.`,
    error?.details,
  );
}

/**
 * The `data` of a success envelope, or an ApiError carrying the envelope's code and message (which the
 * pages show as they are: the API's messages name the problem).
 */
export async function unwrap<T extends { data: unknown }>(
  call: Promise<Result<T>>,
): Promise<T['data']> {
  const result = await settle(call);
  if (result.data !== undefined) return result.data.data;
  throw toApiError(result);
}

/** Like unwrap, for paginated lists: the items and the pagination meta. */
export async function unwrapPage<T extends { data: unknown[]; meta: unknown }>(
  call: Promise<Result<T>>,
): Promise<{ items: T['data']; meta: T['meta'] }> {
  const result = await settle(call);
  if (result.data !== undefined) return { items: result.data.data, meta: result.data.meta };
  throw toApiError(result);
}

/** A message for any thrown value, for error states. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
