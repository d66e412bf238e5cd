import { expressionSyntaxError } from '../../common/jsonata';
import { MAX_TIMER_MS } from '../../common/timers';
import { HandlersModule } from '../../handlers/handlers.module';
import type { StepTypeDescriptor } from '../../steps/step-type';
import { TaskStepDto } from './task-step.dto';
import { TaskStepExecutor } from './task.step';

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `task`: runs a task handler (`@TaskHandler`) with the templated config. */
export const taskStepType: StepTypeDescriptor = {
  type: 'task',
  dto: TaskStepDto,
  check(step, add) {
    // The http handler's own timer; a templated value is clamped when the step runs.
    if (step.handler === 'http' && isPlainObject(step.config)) {
      const timeoutMs = step.config.timeoutMs;
      if (typeof timeoutMs === 'number' && timeoutMs > MAX_TIMER_MS) {
        add(
          'config.timeoutMs',
          `must not be greater than ${MAX_TIMER_MS} (the longest delay a timer can wait, about 24.8 days)`,
        );
      }
    }
    if (step.handler === 'transform') {
      const config = isPlainObject(step.config) ? step.config : {};
      if (typeof config.expression !== 'string') {
        add('config.expression', 'the transform handler needs a JSONata expression string');
      } else {
        const err = expressionSyntaxError(config.expression);
        if (err) add('config.expression', err);
      }
    }
  },
  defaultMaxAttempts: 3,
  executor: TaskStepExecutor,
  imports: [HandlersModule],
};
