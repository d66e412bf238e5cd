import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { catchError, from, map, mergeMap, Observable, throwError } from 'rxjs';
import { AuthError, isDatabaseUnavailable } from '../common/errors';
import type { AuthenticatedRequest } from '../common/auth';
import { ApiKeyAuthService } from './api-key-auth.service';

/**
 * Makes sure no answer goes out for a cached API key (README "API key cache") whose revocation no
 * statement of the request has read: an answer the route gave without settling the check (an error
 * from validation or a 404 before or instead of its statement) waits for a query of the key, and
 * becomes 401 when the key is revoked (a 503, the database out of reach, goes out as it is). A 401
 * drops the key from the cache. Requests whose key the guard read from the database pass straight
 * through.
 */
@Injectable()
export class CachedKeyInterceptor implements NestInterceptor {
  constructor(private readonly auth: ApiKeyAuthService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const auth = context.switchToHttp().getRequest<AuthenticatedRequest>().auth;
    const check = auth?.kind === 'key' ? auth.cached : undefined;
    if (!check) return next.handle();
    return next.handle().pipe(
      mergeMap((value) => (check.settled ? [value] : from(check.confirm()).pipe(map(() => value)))),
      catchError((err: unknown) => {
        if (err instanceof AuthError) this.auth.forget(check);
        // A database that cannot be reached is a 503 whatever the key (as its lookup would have
        // been): asking it again would only double the wait.
        if (check.settled || isDatabaseUnavailable(err)) return throwError(() => err);
        return from(check.confirm()).pipe(mergeMap(() => throwError(() => err)));
      }),
    );
  }
}
