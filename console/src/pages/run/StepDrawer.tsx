import { useEffect, useRef } from 'preact/hooks';
import type { components } from '../../../../client';
import { JsonViewer } from '../../components/JsonViewer';
import { RelativeTime } from '../../components/RelativeTime';
import { StatusBadge } from '../../components/StatusBadge';
import { formatDuration } from '../../format';
import { stepDurationMs } from './timeline';

type StepRun = components['schemas']['StepRunDto'];
type RunEvent = components['schemas']['RunEventDto'];

/**
 * A step run's details in a side panel (a modal native <dialog>: focus stays inside, Escape closes,
 * focus returns to the step's row): state it started from, its definition, output, error and events.
 */
export function StepDrawer(props: {
  step: StepRun;
  state: Record<string, unknown> | undefined;
  definitionStep: Record<string, unknown> | undefined;
  events: RunEvent[];
  now: number;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const { step } = props;
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);
  const duration = stepDurationMs(step, props.now);
  const titleId = 'step-drawer-title';
  return (
    <dialog ref={ref} class="step-drawer" aria-labelledby={titleId} onClose={() => props.onClose()}>
      <div class="step-drawer-head">
        <h2 id={titleId}>
          Step <span class="mono">{step.stepName}</span>
        </h2>
        <button type="button" class="button" onClick={() => ref.current?.close()}>
          Close
        </button>
      </div>
      <dl class="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <StatusBadge status={step.status} />
          </dd>
        </div>
        <div>
          <dt>Type</dt>
          <dd>{step.stepType}</dd>
        </div>
        <div>
          <dt>Attempts</dt>
          <dd>{step.attempt}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>
            <RelativeTime iso={step.startedAt} />
          </dd>
        </div>
        <div>
          <dt>Finished</dt>
          <dd>
            <RelativeTime key={step.completedAt} iso={step.completedAt} />
          </dd>
        </div>
        <div>
          <dt>Duration</dt>
          <dd>
            {duration === undefined
              ? 'not started'
              : `${formatDuration(duration)}${step.completedAt ? '' : ' so far'}`}
          </dd>
        </div>
      </dl>
      <h3>Error</h3>
      {step.error ? <pre class="step-error">{step.error}</pre> : <p class="muted">No error.</p>}
      <h3>Output</h3>
      {step.output === null ? (
        <p class="muted">No output{step.completedAt ? '' : ' yet'}.</p>
      ) : (
        <JsonViewer value={step.output} label="Step output" openDepth={2} />
      )}
      <h3>State before this step</h3>
      <p class="hint">
        The run input with the outputs of the steps completed before this one, as this step read it
        (changes an approval made to the content under review are not shown here).
      </p>
      {props.state ? (
        <JsonViewer value={props.state} label="State before this step" openDepth={1} />
      ) : (
        <p class="muted">Not available.</p>
      )}
      <h3>Definition of the step</h3>
      {props.definitionStep ? (
        <JsonViewer value={props.definitionStep} label="Step definition" openDepth={1} />
      ) : (
        <p class="muted">The definition could not be read.</p>
      )}
      <h3>Events of this step run</h3>
      {props.events.length === 0 ? (
        <p class="muted">None recorded.</p>
      ) : (
        <ul class="step-events">
          {props.events.map((event) => (
            <li key={event.id}>
              <code>{event.eventType}</code> <RelativeTime iso={event.createdAt} />
            </li>
          ))}
        </ul>
      )}
    </dialog>
  );
}
