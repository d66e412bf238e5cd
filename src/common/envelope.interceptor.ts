import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { map, Observable } from 'rxjs';
import type { Response } from 'express';
import { JsonData, Paginated } from './envelope';

/**
 * Wraps every successful answer in `{success: true, data}` (and `meta` for pages); JsonData, which the
 * database wrote as JSON text, is spliced in as it is.
 */
@Injectable()
export class EnvelopeInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      map((value: unknown) => {
        if (value instanceof JsonData) {
          // Written by the database: spliced into the envelope as it is, sent as JSON.
          context.switchToHttp().getResponse<Response>().type('application/json');
          const meta = value.meta ? `,"meta":${JSON.stringify(value.meta)}` : '';
          return `{"success":true,"data":${value.json}${meta}}`;
        }
        return value instanceof Paginated
          ? { success: true, data: value.data, meta: value.meta }
          : { success: true, data: value ?? null };
      }),
    );
  }
}
