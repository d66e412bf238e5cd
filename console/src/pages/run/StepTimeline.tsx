import type { components } from '../../../../client';
import { StatusBadge } from '../../components/StatusBadge';
import { formatDuration } from '../../format';
import { layoutTimeline } from './timeline';

type StepRun = components['schemas']['StepRunDto'];

/**
 * One row per step run: its name, type, status and attempts, and a bar placed by its start and finish
 * on the run's time axis (layout in timeline.ts). Waiting time (wait, external event, approval) is
 * drawn hollow. Each row is one button: click or Enter opens the step's drawer.
 */
export function StepTimeline(props: {
  steps: StepRun[];
  now: number;
  selectedId: string | undefined;
  onOpen: (stepRunId: string) => void;
}) {
  const layout = layoutTimeline(props.steps, props.now);
  return (
    <div class="timeline">
      <p class="hint">
        Solid bars: the step working. Hollow bars: the run waiting (a wait, an external event, an
        approval). Select a step to see its state, output and error.
      </p>
      {layout.ticks.length > 0 && (
        <div class="timeline-axis" aria-hidden="true">
          <span class="timeline-axis-label" />
          <span class="timeline-axis-track">
            {layout.ticks.map((tick) => (
              <span
                key={tick.offsetMs}
                class="timeline-tick"
                ref={(el) => {
                  if (el) el.style.left = `${tick.left}%`;
                }}
              >
                +{formatDuration(tick.offsetMs)}
              </span>
            ))}
          </span>
        </div>
      )}
      <ol class="timeline-rows" aria-label="Step runs in execution order">
        {props.steps.map((step, i) => {
          const bar = layout.bars[i];
          const classes = [
            'timeline-bar',
            `bar-${step.status.toLowerCase()}`,
            bar.hollow ? 'hollow' : 'solid',
            bar.open ? 'open' : '',
          ].join(' ');
          return (
            <li key={step.id}>
              <button
                type="button"
                class="timeline-row"
                aria-haspopup="dialog"
                aria-current={props.selectedId === step.id ? 'true' : undefined}
                onClick={() => props.onOpen(step.id)}
              >
                <span class="timeline-label">
                  <span class="timeline-name">{step.stepName}</span>{' '}
                  <StatusBadge status={step.status} />
                  <span class="timeline-meta">
                    {step.stepType}
                    {step.attempt > 1 ? ` · ${step.attempt} attempts` : ' · 1 attempt'}
                    {bar.durationMs !== undefined
                      ? ` · ${formatDuration(bar.durationMs)}${bar.open ? ' so far' : ''}`
                      : ' · not started'}
                  </span>
                </span>
                <span class="timeline-track" aria-hidden="true">
                  {bar.positioned && (
                    <span
                      class={classes}
                      ref={(el) => {
                        if (!el) return;
                        // Set through the CSSOM: the page's CSP allows no style="" attributes.
                        el.style.left = `${bar.left}%`;
                        el.style.width = `${bar.width}%`;
                      }}
                    >
                      {step.attempt > 1 && <span class="timeline-attempts">×{step.attempt}</span>}
                    </span>
                  )}
                </span>
              </button>
            </li>
          );
        })}
      </ol>
    </div>
  );
}
