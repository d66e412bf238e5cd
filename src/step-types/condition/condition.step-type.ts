import { expressionSyntaxError } from '../../common/jsonata';
import { ExpressionsModule } from '../../expressions/expressions.module';
import type { StepTypeDescriptor } from '../../steps/step-type';
import { ConditionStepDto } from './condition-step.dto';
import { ConditionStepExecutor } from './condition.step';

/** `condition`: a JSONata expression on the run state picks the next step (`then` or `else`). */
export const conditionStepType: StepTypeDescriptor = {
  type: 'condition',
  dto: ConditionStepDto,
  check(step, add) {
    if (typeof step.expression === 'string') {
      const err = expressionSyntaxError(step.expression);
      if (err) add('expression', err);
    }
  },
  jumpFields: ['then', 'else'],
  defaultMaxAttempts: 1,
  executor: ConditionStepExecutor,
  imports: [ExpressionsModule],
};
