import type { components } from '../../../../client';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState } from '../../components/states';
import { formatInteger, formatUsd } from '../../format';

type RunCost = components['schemas']['RunCostDto'];

/** The run's completed LLM calls (GET …/cost): step, model, tokens, cost and time, with totals. */
export function LlmCalls({ cost }: { cost: RunCost }) {
  if (cost.calls.length === 0) {
    return (
      <EmptyState title="No LLM calls in this run.">
        <p>Calls of its llm steps appear here with their tokens and cost once they complete.</p>
      </EmptyState>
    );
  }
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label="LLM calls table">
      <table aria-label="LLM calls, oldest first">
        <thead>
          <tr>
            <th scope="col">Step</th>
            <th scope="col">Model</th>
            <th scope="col" class="num">
              Input tokens
            </th>
            <th scope="col" class="num">
              Output tokens
            </th>
            <th scope="col" class="num">
              Cost
            </th>
            <th scope="col">Time</th>
          </tr>
        </thead>
        <tbody>
          {cost.calls.map((call, i) => (
            <tr key={`${call.createdAt}-${i}`}>
              <td>{call.stepName}</td>
              <td class="mono">{call.model}</td>
              <td class="num">{formatInteger(call.inputTokens)}</td>
              <td class="num">{formatInteger(call.outputTokens)}</td>
              <td class="num">{formatUsd(call.costUsd)}</td>
              <td class="nowrap">
                <RelativeTime iso={call.createdAt} />
              </td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colSpan={2}>
              Total ({cost.calls.length} {cost.calls.length === 1 ? 'call' : 'calls'})
            </th>
            <td class="num">{formatInteger(cost.totalInputTokens)}</td>
            <td class="num">{formatInteger(cost.totalOutputTokens)}</td>
            <td class="num">{formatUsd(cost.totalCostUsd)}</td>
            <td />
          </tr>
        </tfoot>
      </table>
    </div>
  );
}
