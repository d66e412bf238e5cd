import { useEffect, useState } from 'preact/hooks';
import { api, errorMessage, unwrap } from '../../api';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { useCan } from '../../session';
import { canCancel, canResume, canRetry, parseJsonObject, signalTypeProblem } from './run-rules';

type Action = 'cancel' | 'resume' | 'retry';

const DONE: Record<Action, string> = {
  cancel: 'The run was cancelled.',
  resume: 'The signal was delivered; the run goes on.',
  retry: 'The run is retried from its failed step.',
};

/**
 * Cancel, resume (signal type and JSON payload) and retry, each offered only where the run's status
 * allows it and confirmed in a dialog. The API's refusal (409 when the run moved on meanwhile, 400 for
 * a payload it does not take) is shown with its own message, and the page is read again either way.
 */
export function RunActions(props: {
  runId: string;
  status: string;
  /** The signal type the waiting step expects, when the definition names one. */
  expectedSignal: string | undefined;
  /** After an action was answered: `done` when the API carried it out. */
  onChanged: (done: boolean) => void;
}) {
  const [open, setOpen] = useState<Action>();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string }>();
  const [signalType, setSignalType] = useState('');
  const [signalEdited, setSignalEdited] = useState(false);
  const [payloadText, setPayloadText] = useState('{}');
  useEffect(() => {
    if (!signalEdited) setSignalType(props.expectedSignal ?? '');
  }, [props.expectedSignal, signalEdited]);

  const payload = parseJsonObject(payloadText);
  const signalProblem = signalTypeProblem(signalType);
  const path = { params: { path: { id: props.runId } } };

  async function perform(action: Action): Promise<void> {
    if (action === 'resume' && (!payload.ok || signalProblem)) return;
    setBusy(true);
    setOutcome(undefined);
    try {
      if (action === 'cancel') {
        await unwrap(api.POST('/v1/workflow-runs/{id}/cancel', path));
      } else if (action === 'retry') {
        await unwrap(api.POST('/v1/workflow-runs/{id}/retry', path));
      } else {
        await unwrap(
          api.POST('/v1/workflow-runs/{id}/resume', {
            ...path,
            body: { signalType: signalType.trim(), payload: payload.ok ? payload.value : {} },
          }),
        );
      }
      setOutcome({ ok: true, text: DONE[action] });
      props.onChanged(true);
    } catch (err) {
      setOutcome({ ok: false, text: `The ${action} was refused: ${errorMessage(err)}` });
      props.onChanged(false);
    } finally {
      setBusy(false);
      setOpen(undefined);
    }
  }

  // A key without runs:write sees the run but no action (README "Scopes").
  const writes = useCan('runs:write');
  const cancellable = writes && canCancel(props.status);
  const resumable = writes && canResume(props.status);
  const retryable = writes && canRetry(props.status);
  const wouldOffer = canCancel(props.status) || canResume(props.status) || canRetry(props.status);
  return (
    <div class="run-actions">
      {(cancellable || resumable || retryable) && (
        <div class="run-action-buttons">
          {resumable && (
            <button type="button" class="button primary" onClick={() => setOpen('resume')}>
              Resume…
            </button>
          )}
          {retryable && (
            <button type="button" class="button primary" onClick={() => setOpen('retry')}>
              Retry…
            </button>
          )}
          {cancellable && (
            <button type="button" class="button danger" onClick={() => setOpen('cancel')}>
              Cancel run…
            </button>
          )}
        </div>
      )}
      {!writes && wouldOffer && (
        <p class="hint scope-hint">
          Cancel, resume and retry need the scope <code>runs:write</code>, which the key you signed
          in with lacks.
        </p>
      )}
      {props.status === 'PAUSED' && (
        <p class="hint">
          This run waits for an approval decision: decide it in the{' '}
          <a href="/console/approvals">approvals inbox</a>.
        </p>
      )}
      {outcome && (
        <p class={outcome.ok ? 'notice' : 'error-state'} role={outcome.ok ? 'status' : 'alert'}>
          {outcome.text}
        </p>
      )}

      <ConfirmDialog
        open={open === 'cancel'}
        title="Cancel this run?"
        confirmLabel="Cancel run"
        danger
        busy={busy}
        onConfirm={() => void perform('cancel')}
        onCancel={() => setOpen(undefined)}
      >
        <p>
          The run stops: a step in progress is aborted and no later step starts. This cannot be
          undone.
        </p>
      </ConfirmDialog>

      <ConfirmDialog
        open={open === 'retry'}
        title="Retry this run?"
        confirmLabel="Retry run"
        busy={busy}
        onConfirm={() => void perform('retry')}
        onCancel={() => setOpen(undefined)}
      >
        <p>
          The run starts again at its failed step, as a new step run whose attempts count from 1.
          Earlier steps do not run again.
        </p>
      </ConfirmDialog>

      <ConfirmDialog
        open={open === 'resume'}
        title="Resume this run?"
        confirmLabel="Send signal"
        busy={busy}
        canConfirm={payload.ok && !signalProblem}
        onConfirm={() => void perform('resume')}
        onCancel={() => setOpen(undefined)}
      >
        <div class="form">
          <label for="resume-signal-type">Signal type</label>
          <input
            id="resume-signal-type"
            value={signalType}
            spellcheck={false}
            autocomplete="off"
            aria-invalid={signalProblem ? 'true' : undefined}
            aria-describedby="resume-signal-hint"
            onInput={(e) => {
              setSignalEdited(true);
              setSignalType(e.currentTarget.value);
            }}
          />
          <p id="resume-signal-hint" class="hint">
            {signalProblem ??
              (props.expectedSignal
                ? `The waiting step expects "${props.expectedSignal}".`
                : 'The waiting step accepts any signal type.')}
          </p>
          <label for="resume-payload">Payload (JSON object)</label>
          <textarea
            id="resume-payload"
            value={payloadText}
            spellcheck={false}
            aria-invalid={payload.ok ? undefined : 'true'}
            aria-describedby="resume-payload-hint"
            onInput={(e) => setPayloadText(e.currentTarget.value)}
          />
          <p
            id="resume-payload-hint"
            class={payload.ok ? 'hint' : 'field-problem'}
            role={payload.ok ? undefined : 'alert'}
          >
            {payload.ok
              ? 'Delivered to the step as its signal payload; empty means {}.'
              : payload.message}
          </p>
        </div>
      </ConfirmDialog>
    </div>
  );
}
