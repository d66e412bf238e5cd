import {
  NonRetryableError,
  TaskHandler,
  type TaskHandlerContext,
  type TaskHandlerImpl,
} from 'workflow-orchestrator';

/**
 * `greet`: greets `config.name` (a literal or a placeholder such as `{{customer.name}}`), with
 * `config.salutation` when given. Its output is stored under the step's outputKey like any task's.
 */
@TaskHandler('greet')
export class GreetHandler implements TaskHandlerImpl {
  handle({ config, attempt }: TaskHandlerContext): Record<string, unknown> {
    const { name, salutation = 'Hello' } = config;
    if (typeof name !== 'string' || name.trim() === '' || typeof salutation !== 'string') {
      // The definition is wrong, not the moment: a retry would fail the same way.
      throw new NonRetryableError('greet needs config.name, a non-empty string');
    }
    return { greeting: `${salutation}, ${name}!`, attempt };
  }
}
