import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { map, Observable } from 'rxjs';
import { Paginated } from './envelope';

/** Wraps every successful answer in `{success: true, data}` (and `meta` for pages). */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next
      .handle()
      .pipe(
        map((value: unknown) =>
          value instanceof Paginated
            ? { success: true, data: value.data, meta: value.meta }
            : { success: true, data: value ?? null },
        ),
      );
  }
}
