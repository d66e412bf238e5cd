import { TaskHandler, type TaskHandlerImpl } from '../task-handler';

/** Does nothing and returns `{}`. */
@TaskHandler('noop')
export class NoopHandler implements TaskHandlerImpl {
  handle(): Record<string, unknown> {
    return {};
  }
}
