// The OpenAPI document and the typed client's types, generated from the code.
//
//   node scripts/openapi.mjs generate       writes client/openapi.json and client/schema.ts from the
//                                           built service (npm run openapi:generate builds first)
//   node scripts/openapi.mjs types <file>   prints the types of the document in <file> (the drift
//                                           test compares them with client/schema.ts)
//
// The document is built from an application created in Nest's preview mode: the controllers and
// their decorators without any provider running, so no database is needed.
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

export const DOCUMENT_FILE = path.join(root, 'client', 'openapi.json');
export const TYPES_FILE = path.join(root, 'client', 'schema.ts');

const HEADER = `/**
 * Generated from client/openapi.json (the document the service serves at /openapi.json) by
 * openapi-typescript. Do not edit: change the controllers and DTOs, then run
 * \`npm run openapi:generate\`. The e2e test test/openapi.e2e-spec.ts fails when this file differs
 * from what the served document gives.
 */
`;

/** The TypeScript types of an OpenAPI document, as committed in client/schema.ts. */
export async function renderTypes(document) {
  // defaultNonNullable: false, so that a request field with a default (run input) stays optional.
  const ast = await openapiTS(document, { alphabetize: false, defaultNonNullable: false });
  return HEADER + astToString(ast);
}

/** The document the service serves, built from dist/ without a database. */
async function buildDocument() {
  const { NestFactory } = require('@nestjs/core');
  const { AppModule } = require(path.join(root, 'dist/app.module.js'));
  const { loadConfig } = require(path.join(root, 'dist/config/app-config.js'));
  const { buildOpenApiDocument } = require(path.join(root, 'dist/openapi.js'));
  const { BUILTIN_STEP_TYPES } = require(path.join(root, 'dist/step-types/builtin-step-types.js'));
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const app = await NestFactory.create(AppModule.forRoot(config), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  return buildOpenApiDocument(
    app,
    BUILTIN_STEP_TYPES.map((t) => t.type),
  );
}

async function main([command, file]) {
  if (command === 'generate') {
    const document = await buildDocument();
    await writeFile(DOCUMENT_FILE, `${JSON.stringify(document, null, 2)}\n`);
    await writeFile(TYPES_FILE, await renderTypes(document));
    console.log(
      `wrote ${path.relative(root, DOCUMENT_FILE)} and ${path.relative(root, TYPES_FILE)}`,
    );
  } else if (command === 'types' && file) {
    const types = await renderTypes(JSON.parse(await readFile(file, 'utf8')));
    // Into a pipe the write completes asynchronously once the reader has taken it: exiting before
    // would cut the types at the pipe's buffer (64 KiB) whenever the reader is slow (a busy machine).
    await new Promise((resolve, reject) =>
      process.stdout.write(types, (err) => (err ? reject(err) : resolve())),
    );
  } else {
    console.error('usage: node scripts/openapi.mjs generate | types <document.json>');
    process.exitCode = 2;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    () => process.exit(),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
