import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import request, { type Response as TestResponse } from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import type Test from 'supertest/lib/test';
import document from '../../client/openapi.json';

/**
 * Every answer the e2e suite gets through a checked agent is held against the committed OpenAPI
 * document (client/openapi.json, which test/openapi.e2e-spec.ts keeps equal to what the service
 * serves): the status must be declared for the operation (method + path template) and the body must
 * match the schema declared for that status. Objects are closed for the check: a property the schema
 * does not declare fails it, so the document cannot miss a field the service sends.
 *
 * Not API answers, and exempt by rule: the documentation itself (/docs, /openapi.json) and, on paths
 * the document does not describe, answers that are not JSON. A JSON answer on such a path (an unknown
 * route, a method the path does not have) must be the error envelope.
 */

type Schema = Record<string, unknown>;
interface OpenApiResponse {
  content?: Record<string, { schema?: Schema }>;
}
interface OpenApiOperation {
  operationId: string;
  responses: Record<string, OpenApiResponse>;
}
interface Operation {
  method: string;
  template: string;
  operationId: string;
  pattern: RegExp;
  literalSegments: number;
  responses: Record<string, OpenApiResponse>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const DOCUMENTATION = /^\/(docs(\/.*)?|openapi\.json)$/;

/** The annotations of OpenAPI 3.0 schemas that JSON Schema validation ignores. */
const ANNOTATIONS = ['example', 'xml', 'externalDocs', 'discriminator'];

/**
 * A copy of `schema` in which every object schema that lists its properties and says nothing of others
 * refuses undeclared ones. Not inside `allOf`, where each member sees only part of the object (the
 * members that are references are closed where they are defined).
 */
function closeObjects(schema: unknown, inAllOf = false): unknown {
  if (Array.isArray(schema)) return schema.map((s) => closeObjects(s, inAllOf));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema as Schema)) {
    if (key === 'allOf') out[key] = (value as unknown[]).map((s) => closeObjects(s, true));
    else if (key === 'properties') {
      out[key] = Object.fromEntries(
        Object.entries(value as Schema).map(([name, s]) => [name, closeObjects(s, inAllOf)]),
      );
    } else if (key === 'items' || key === 'additionalProperties') {
      out[key] = closeObjects(value, inAllOf);
    } else out[key] = value;
  }
  if (!inAllOf && out.properties && !('additionalProperties' in out)) {
    out.additionalProperties = false;
  }
  return out;
}

const ajv = new Ajv({ allErrors: true, strict: true, keywords: ANNOTATIONS });
addFormats(ajv);
const doc = document as unknown as {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, Schema> };
};
ajv.addSchema({
  $id: 'openapi.json',
  definitions: Object.fromEntries(
    Object.entries(doc.components.schemas).map(([name, s]) => [name, retarget(closeObjects(s))]),
  ),
});

/** `#/components/schemas/X` -> `openapi.json#/definitions/X`, where the closed copies live. */
function retarget(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(retarget);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema as Schema).map(([key, value]) =>
      key === '$ref' && typeof value === 'string'
        ? [key, value.replace('#/components/schemas/', 'openapi.json#/definitions/')]
        : [key, retarget(value)],
    ),
  );
}

const validators = new Map<string, ValidateFunction>();
function validatorFor(key: string, schema: Schema): ValidateFunction {
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(retarget(closeObjects(schema)) as Schema);
    validators.set(key, validate);
  }
  return validate;
}

export const OPERATIONS: readonly Operation[] = Object.entries(doc.paths).flatMap(
  ([template, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => {
        const segments = template.split('/');
        const pattern = segments
          .map((s) => (/^\{.+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
          .join('/');
        return {
          method: method.toUpperCase(),
          template,
          operationId: op.operationId,
          pattern: new RegExp(`^${pattern}$`, 'i'),
          literalSegments: segments.filter((s) => !s.startsWith('{')).length,
          responses: op.responses,
        };
      }),
);

/** The operation a request reached: a literal segment wins over a parameter (`current` over `{id}`). */
export function findOperation(method: string, pathname: string): Operation | undefined {
  const normalized = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return OPERATIONS.filter((o) => o.method === method && o.pattern.test(normalized)).sort(
    (a, b) => b.literalSegments - a.literalSegments,
  )[0];
}

function pathExists(pathname: string): boolean {
  const normalized = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return OPERATIONS.some((o) => o.pattern.test(normalized));
}

/** What the check reads of an answer (a supertest Response has it; checkedFetch builds it). */
export interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: unknown;
  text: string;
}

function isJson(res: Answer): boolean {
  const type = res.headers['content-type'];
  return typeof type === 'string' && /^application\/json\b/i.test(type);
}

function describeErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}${paramsOf(e.params)}`)
    .join('; ');
}

function paramsOf(params: Record<string, unknown>): string {
  if ('additionalProperty' in params) return ` (${String(params.additionalProperty)})`;
  if ('allowedValues' in params) return ` (${JSON.stringify(params.allowedValues)})`;
  return '';
}

function excerpt(res: Answer): string {
  const text = res.text ?? '';
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

export class OpenApiMismatch extends Error {
  override name = 'OpenApiMismatch';
}

/**
 * Holds one answer against the document; throws an OpenApiMismatch naming the operation, the status
 * and the schema error. Returns what was checked (`METHOD template status`), or undefined for an
 * exempt answer.
 */
export function checkAnswer(method: string, url: string, res: Answer): string | undefined {
  const { pathname } = new URL(url, 'http://localhost');
  const operation = findOperation(method, pathname);
  const bodyless = method === 'HEAD' || res.status === 204 || res.status === 304;
  if (!operation) {
    if (DOCUMENTATION.test(pathname) || !isJson(res) || bodyless) return undefined;
    // An unknown route or method, or an answer of the middleware before any route: the error envelope.
    const where = pathExists(pathname) ? 'a method the path does not have' : 'an undocumented path';
    const validate = validatorFor('ErrorEnvelope', {
      $ref: '#/components/schemas/ErrorEnvelope',
    });
    if (res.status < 400 || !validate(res.body)) {
      throw new OpenApiMismatch(
        `OpenAPI: ${method} ${pathname} (${where}) answered ${res.status} with a JSON body that is ` +
          `not the error envelope: ${describeErrors(validate) || 'not an error status'}; body: ${excerpt(res)}`,
      );
    }
    return undefined;
  }
  const name = `${operation.method} ${operation.template} (${operation.operationId})`;
  const declared = operation.responses[String(res.status)];
  if (!declared) {
    throw new OpenApiMismatch(
      `OpenAPI: ${name} answered ${res.status}, which it does not declare ` +
        `(declared: ${Object.keys(operation.responses).join(', ')}); body: ${excerpt(res)}`,
    );
  }
  const key = `${operation.method} ${operation.template} ${res.status}`;
  if (bodyless) return key;
  const media = Object.keys(declared.content ?? {});
  if (media.length === 0) {
    if (res.text) {
      throw new OpenApiMismatch(
        `OpenAPI: ${name} answered ${res.status} with a body, but declares none: ${excerpt(res)}`,
      );
    }
    return key;
  }
  const header = res.headers['content-type'];
  const type = (typeof header === 'string' ? header : '').split(';')[0].trim().toLowerCase();
  if (!media.includes(type)) {
    throw new OpenApiMismatch(
      `OpenAPI: ${name} answered ${res.status} as ${type || 'no content type'}, ` +
        `but declares ${media.join(', ')}`,
    );
  }
  const schema = declared.content?.[type]?.schema;
  // Only JSON bodies are held to a schema (a text/plain answer, such as metrics, only to its type).
  if (type !== 'application/json' || !schema) return key;
  const validate = validatorFor(key, schema);
  if (!validate(res.body)) {
    throw new OpenApiMismatch(
      `OpenAPI: ${name} answered ${res.status} with a body that does not match its schema: ` +
        `${describeErrors(validate)}; body: ${excerpt(res)}`,
    );
  }
  return key;
}

/**
 * Notes the operations and statuses the run has seen, one line each the first time this process sees
 * it, in the folder the global setup names; the global teardown reads them all.
 */
const seen = new Set<string>();
function record(key: string): void {
  const dir = process.env.WF_OPENAPI_SEEN_DIR;
  if (!dir || seen.has(key)) return;
  seen.add(key);
  appendFileSync(path.join(dir, `${process.pid}.txt`), `${key}\n`);
}

/** Adds the check to a supertest request: a mismatch fails the request's promise. */
function checked(test: Test): Test {
  return test.expect((res: TestResponse) => {
    const key = checkAnswer(test.method.toUpperCase(), test.url, res);
    if (key) record(key);
  });
}

/**
 * A `fetch` that checks every answer like the checked agent does (for the typed client, which takes a
 * `fetch`); a mismatch rejects the call.
 */
export const checkedFetch: typeof fetch = async (input, init) => {
  const req = new Request(input, init);
  const response = await fetch(req);
  const text = await response.clone().text();
  const headers = Object.fromEntries(response.headers);
  let body: unknown = {};
  if (/^application\/json\b/i.test(headers['content-type'] ?? '') && text) {
    body = JSON.parse(text) as unknown;
  }
  const key = checkAnswer(req.method, req.url, {
    status: response.status,
    headers,
    body,
    text,
  });
  if (key) record(key);
  return response;
};

const AGENT_METHODS = new Set([...METHODS, 'del']);

/** A supertest agent for `baseUrl` whose every answer is checked against the OpenAPI document. */
export function checkedAgent(baseUrl: string): TestAgent {
  const agent = request(baseUrl) as unknown as Record<string, (url: string) => Test>;
  return new Proxy(agent, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof property !== 'string' || !AGENT_METHODS.has(property)) return value;
      return (url: string) => checked(target[property](url));
    },
  }) as unknown as TestAgent;
}
