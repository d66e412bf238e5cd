import { Param, type PipeTransform } from '@nestjs/common';
import { NotFoundError } from './errors';
import { isUuid } from './ids';

/**
 * A path parameter that names a resource by id. Ids are UUIDs, so any other value cannot name one and
 * is answered like an unknown id: 404 NOT_FOUND "<resource> not found". Checked before the handler, it
 * never reaches a query, where PostgreSQL would refuse the cast.
 *
 * Where it runs among the other checks: guards (authentication) first, then the pipes, then the
 * services' own checks (the size limits, 413). Nest starts the pipes of all parameters at once, the
 * last parameter's first, and answers the first refusal: with a bad body (or query) and a malformed
 * id, the one whose parameter comes last. So controllers declare the ids before the body and the
 * query, and such a request is answered 400, as when services checked ids. id.pipe.spec.ts shows
 * both orders; test/malformed-ids.e2e-spec.ts pins the routes.
 */
export class IdPipe implements PipeTransform<unknown, string> {
  constructor(private readonly resource: string) {}

  transform(value: unknown): string {
    if (!isUuid(value)) throw new NotFoundError(this.resource);
    return value;
  }
}

/**
 * `@IdParam('workflow run') id: string`: the path parameter `name` (default `id`) through IdPipe. The
 * OpenAPI document describes it like a plain `@Param(name)`.
 *
 * For the id of a resource under another one, `outer` names the other's parameter:
 * `@IdParam('webhook delivery', 'deliveryId', { name: 'id', resource: 'webhook' })`. With both ids
 * malformed the outer resource is the one not found: this parameter checks the outer id first, so
 * the answer does not depend on which parameter's pipe refuses first (the last one's). Such a
 * parameter reads all the path parameters, and the OpenAPI document no longer sees it: the route
 * describes it with `@ApiParam`.
 */
export function IdParam(
  resource: string,
  name = 'id',
  outer?: { name: string; resource: string },
): ParameterDecorator {
  if (!outer) return Param(name, new IdPipe(resource));
  return Param(new InnerIdPipe(outer.name, new IdPipe(outer.resource), name, new IdPipe(resource)));
}

/** The inner id of a path with two (see IdParam), checked after the outer one. */
class InnerIdPipe implements PipeTransform<unknown, string> {
  constructor(
    private readonly outerName: string,
    private readonly outer: IdPipe,
    private readonly name: string,
    private readonly inner: IdPipe,
  ) {}

  transform(params: unknown): string {
    const given = (params ?? {}) as Record<string, unknown>;
    this.outer.transform(given[this.outerName]);
    return this.inner.transform(given[this.name]);
  }
}
