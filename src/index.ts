/**
 * The package's public entry point (`require('workflow-orchestrator')`): what an extension or an
 * embedding application may import. Everything else under dist/ is internal and may change in any
 * release; the package's `exports` map refuses deep imports.
 */

// Task handlers: providers marked with @TaskHandler(name), found by the registry at boot.
export { TaskHandler } from './handlers/task-handler';
export type { TaskHandlerContext, TaskHandlerImpl } from './handlers/task-handler';

// The step contract: what a step type's executor receives and returns. NonRetryableError fails the
// attempt without retries, thrown by a task handler as by an executor.
export { NonRetryableError } from './steps/step-executor';
export type { StepContext, StepExecutor, StepOutcome } from './steps/step-executor';

// Step types: a descriptor per type (its DTO, checks, jump fields, default attempts, executor),
// registered from a module with StepTypesModule.register([...]); the DTO extends BaseStepDto.
export { StepTypesModule } from './steps/step-types.module';
export type { StepTypeDescriptor } from './steps/step-type';
export { BaseStepDto } from './steps/step-dtos';
export type { StepDefinition } from './steps/step-definition';

// Scopes (README "Scopes"): an extension's controller declares the scope each route needs, or that
// any valid key may call it; a route that declares neither is open only to keys holding every scope.
export { NoScope, RequiresScope } from './common/auth';
export { SCOPES } from './common/scopes';
export type { Scope } from './common/scopes';

// Embedding the service in a process of one's own, as dist/main.js does: loadConfig, runMigrations,
// then createApp(config, createPinoLogger(config.logLevel), [the embedder's modules]).
export { createApp } from './bootstrap';
export { ConfigError, loadConfig } from './config/app-config';
export type { AppConfig } from './config/app-config';
export { createPinoLogger } from './common/logger';
export { runMigrations } from './database/migrations';
