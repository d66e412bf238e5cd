import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { documentConsoleSession, documentErrorSchemas, documentScopes } from './common/swagger';
import { documentStepTypes } from './definitions/dto/definition.dto';
import { documentIdempotency } from './idempotency/idempotency.openapi';

/**
 * The OpenAPI document of the service, built from the controllers' decorators. `stepTypes` are the
 * registered step types (an extension's too), named in the description of a definition's steps.
 * Served at /openapi.json; `npm run openapi:generate` writes it to client/openapi.json from an
 * application created in preview mode (no database), and the e2e suite checks both against each other
 * and every answer it gets against it.
 */
export function buildOpenApiDocument(
  app: INestApplication,
  stepTypes: readonly string[],
): OpenAPIObject {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Workflow Orchestration Service')
      .setDescription(
        'Durable workflows with LLM steps, human approvals, cost tracking and signed webhooks. ' +
          'Every answer uses the envelope {success, data | error}.',
      )
      .setVersion('1')
      .addApiKey({ type: 'apiKey', name: 'x-api-key', in: 'header' }, 'api-key')
      .addCookieAuth(
        'orchestrator_session',
        {
          type: 'apiKey',
          in: 'cookie',
          name: 'orchestrator_session',
          description:
            'The console session (POST /v1/console/session), used when x-api-key is absent. ' +
            'Changes through it need an Origin of this service (403 FORBIDDEN otherwise).',
        },
        'console-session',
      )
      .build(),
  );
  documentStepTypes(document, stepTypes);
  documentScopes(document);
  documentConsoleSession(document, 'console-session');
  documentIdempotency(document);
  documentErrorSchemas(document);
  return document;
}
