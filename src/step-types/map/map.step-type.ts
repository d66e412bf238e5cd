import { HandlersModule } from '../../handlers/handlers.module';
import { QueueModule } from '../../queue/queue.module';
import type { StepTypeDescriptor } from '../../steps/step-type';
import { taskStepType } from '../task/task.step-type';
import { MapStepDto } from './map-step.dto';
import { MapStepExecutor } from './map.step';

const SUB_STEP_FIELDS = new Set(['type', 'handler', 'config', 'retry']);
const RETRY_FIELDS = ['maxAttempts', 'initialDelayMs', 'backoffMultiplier', 'maxDelayMs'];

/** `toleratedFailures` as a count (or a percentage, "N%" with N in 0-100). */
export const TOLERATED_PERCENT = /^(\d{1,3})(\.\d{1,2})?%$/;

const WORKFLOW_SUB_STEP_FIELDS = new Set([
  'type',
  'definitionId',
  'definitionName',
  'version',
  'input',
]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A workflow sub-step: a child run per item, by definition id or by name and version. */
function checkWorkflowSubStep(
  sub: Record<string, unknown>,
  add: (field: string, message: string) => void,
): void {
  for (const key of Object.keys(sub)) {
    if (!WORKFLOW_SUB_STEP_FIELDS.has(key)) add(`step.${key}`, 'is not allowed in a map sub-step');
  }
  const byId = sub.definitionId !== undefined;
  const byName = sub.definitionName !== undefined;
  if (byId === byName) {
    add('step.definitionId', 'give either definitionId, or definitionName with version');
  } else if (byId && (typeof sub.definitionId !== 'string' || !UUID.test(sub.definitionId))) {
    add('step.definitionId', 'must be a UUID');
  } else if (byName) {
    const name = sub.definitionName;
    if (typeof name !== 'string' || name.length < 1 || name.length > 200) {
      add('step.definitionName', 'must be a string of 1-200 characters');
    }
    const version = sub.version;
    if (typeof version !== 'string' || version.length < 1 || version.length > 50) {
      add('step.version', 'is required with definitionName: a string of 1-50 characters');
    }
  }
  if (byId && sub.version !== undefined) {
    add('step.version', 'goes with definitionName; definitionId already names one version');
  }
  if (sub.input !== undefined && !isPlainObject(sub.input)) add('step.input', 'must be an object');
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * `map`: runs its sub-step (a task) once for each element of an array in the state, `maxConcurrency`
 * at a time, the items waiting as rows of `map_items`, and collects the results in order.
 */
export const mapStepType: StepTypeDescriptor = {
  type: 'map',
  dto: MapStepDto,
  check(step, add) {
    const t = step.toleratedFailures;
    if (t !== undefined) {
      const percent = typeof t === 'string' ? TOLERATED_PERCENT.exec(t) : null;
      const countOk = typeof t === 'number' && Number.isInteger(t) && t >= 0;
      if (!countOk && !(percent && Number.parseFloat(t as string) <= 100)) {
        add(
          'toleratedFailures',
          'must be a whole number of items (0 or more) or a percentage such as "10%"',
        );
      }
    }
    const sub = step.step;
    if (!isPlainObject(sub)) return;
    if (sub.type === 'workflow') {
      checkWorkflowSubStep(sub, add);
      return;
    }
    if (sub.type !== 'task') {
      add('step.type', 'must be task or workflow');
      return;
    }
    for (const key of Object.keys(sub)) {
      if (!SUB_STEP_FIELDS.has(key)) add(`step.${key}`, 'is not allowed in a map sub-step');
    }
    if (typeof sub.handler !== 'string' || sub.handler.length < 1 || sub.handler.length > 100) {
      add('step.handler', 'must be a string of 1-100 characters');
    }
    if (sub.config !== undefined && !isPlainObject(sub.config)) {
      add('step.config', 'must be an object');
    }
    if (sub.retry !== undefined) {
      if (!isPlainObject(sub.retry)) add('step.retry', 'must be an object');
      else {
        for (const [key, value] of Object.entries(sub.retry)) {
          if (!RETRY_FIELDS.includes(key)) add(`step.retry.${key}`, 'is not allowed');
          else if (typeof value !== 'number' || !(value >= 0) || value > 86_400_000) {
            add(`step.retry.${key}`, 'must be a number from 0 to 86400000');
          }
        }
        const max = sub.retry.maxAttempts;
        if (typeof max === 'number' && (!Number.isInteger(max) || max < 1 || max > 20)) {
          add('step.retry.maxAttempts', 'must be a whole number from 1 to 20');
        }
      }
    }
    taskStepType.check?.(sub, (field, message) => add(`step.${field}`, message));
  },
  defaultMaxAttempts: 1,
  executor: MapStepExecutor,
  imports: [HandlersModule, QueueModule],
};
