import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../../client';
import { api, errorMessage, unwrap } from '../../api';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { RelativeTime } from '../../components/RelativeTime';
import { formatInteger } from '../../format';
import { useCan } from '../../session';
import { canSignal, parseJsonValue, signalOutcome, signalTypeProblem } from './run-rules';

type BufferedSignal = components['schemas']['BufferedSignalDto'];
/** Any JSON value, as the OpenAPI document spells it. */
type SignalPayload = components['schemas']['SendSignalDto']['payload'];

/**
 * The run's buffered signals (README "Signals"): those sent before a step of their type waited, oldest
 * first, with their type, when they were received and the start of their payload; and a form to send
 * one (signal type and any JSON payload, checked here before the API checks it again). The API says
 * whether it was delivered to the waiting step or buffered. Not shown for a run that has ended (it then
 * holds none, they are dropped with its end, and takes none), unless a send from this page just
 * answered: its outcome (a delivery that completed the run, a refusal) stays in view.
 */
export function SignalsPanel(props: {
  runId: string;
  status: string;
  signals: BufferedSignal[];
  /** The signal type the waiting step expects, when the definition names one. */
  expectedSignal: string | undefined;
  /** After a signal was answered: `done` when the API took it. */
  onChanged: (done: boolean) => void;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string }>();
  const [signalType, setSignalType] = useState('');
  const [typeEdited, setTypeEdited] = useState(false);
  const [payloadText, setPayloadText] = useState('{}');
  useEffect(() => {
    if (!typeEdited) setSignalType(props.expectedSignal ?? '');
  }, [props.expectedSignal, typeEdited]);

  const payload = parseJsonValue(payloadText);
  const typeProblem = signalTypeProblem(signalType);
  const notEnded = canSignal(props.status);
  // A key without runs:write sees the signals but cannot send one (README "Scopes").
  const writes = useCan('runs:write');
  const sendable = notEnded && writes;

  async function send(): Promise<void> {
    if (!payload.ok || typeProblem) return;
    const type = signalType.trim();
    setBusy(true);
    setOutcome(undefined);
    try {
      const sent = await unwrap(
        api.POST('/v1/workflow-runs/{id}/signals', {
          params: { path: { id: props.runId } },
          // JSON.parse gives one of the JSON values the document lists.
          body: { signalType: type, payload: payload.value as SignalPayload },
        }),
      );
      setOutcome({ ok: true, text: signalOutcome(sent.status, type) });
      props.onChanged(true);
    } catch (err) {
      setOutcome({ ok: false, text: `The signal was refused: ${errorMessage(err)}` });
      props.onChanged(false);
    } finally {
      setBusy(false);
      setOpen(false);
    }
  }

  // An ended run holds no signal and takes none; the section stays only for what a send just said.
  if (!notEnded && !outcome) return null;
  return (
    <section class="signals" aria-labelledby="signals-title">
      <div class="signals-head">
        <h2 id="signals-title">Buffered signals</h2>
        {sendable && (
          <button type="button" class="button" onClick={() => setOpen(true)}>
            Send signal…
          </button>
        )}
      </div>
      <p class="hint">
        A signal sent before the run waits for it is kept here; the next external_event step of its
        type takes the oldest one as soon as it starts. Signals left when the run ends are dropped.
      </p>
      {outcome && (
        <p class={outcome.ok ? 'notice' : 'error-state'} role={outcome.ok ? 'status' : 'alert'}>
          {outcome.text}
        </p>
      )}
      {notEnded && !writes && (
        <p class="hint scope-hint">
          Sending a signal needs the scope <code>runs:write</code>, which the key you signed in with
          lacks.
        </p>
      )}
      {props.signals.length === 0 ? (
        <p class="muted signals-empty">
          {notEnded ? 'No signal is waiting for a step.' : 'None: the run has ended.'}
        </p>
      ) : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Buffered signals table">
          <table class="signals-table" aria-label="Buffered signals, oldest first">
            <thead>
              <tr>
                <th scope="col">Type</th>
                <th scope="col">Received</th>
                <th scope="col">Payload</th>
                <th scope="col" class="num">
                  Size
                </th>
              </tr>
            </thead>
            <tbody>
              {props.signals.map((signal) => (
                <tr key={signal.id}>
                  <td class="mono signal-type">{signal.signalType}</td>
                  <td class="nowrap">
                    <RelativeTime iso={signal.receivedAt} />
                  </td>
                  <td>
                    <code class="mono break signal-preview">{signal.payloadPreview}</code>
                  </td>
                  <td class="num nowrap">{formatInteger(signal.payloadBytes)} B</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      <ConfirmDialog
        open={open}
        title="Send a signal"
        confirmLabel="Send signal"
        busy={busy}
        canConfirm={payload.ok && !typeProblem}
        onConfirm={() => void send()}
        onCancel={() => setOpen(false)}
      >
        <div class="form">
          <p class="hint">
            Delivered now if the run waits on an external_event step of this type; otherwise kept
            for the next one.
          </p>
          <label for="signal-type">Signal type</label>
          <input
            id="signal-type"
            value={signalType}
            spellcheck={false}
            autocomplete="off"
            aria-invalid={typeProblem ? 'true' : undefined}
            aria-describedby="signal-type-hint"
            onInput={(e) => {
              setTypeEdited(true);
              setSignalType(e.currentTarget.value);
            }}
          />
          <p id="signal-type-hint" class={typeProblem ? 'field-problem' : 'hint'}>
            {typeProblem ??
              (props.expectedSignal
                ? `The waiting step expects "${props.expectedSignal}".`
                : 'The type of an external_event step of the definition.')}
          </p>
          <label for="signal-payload">Payload (JSON)</label>
          <textarea
            id="signal-payload"
            value={payloadText}
            spellcheck={false}
            aria-invalid={payload.ok ? undefined : 'true'}
            aria-describedby="signal-payload-hint"
            onInput={(e) => setPayloadText(e.currentTarget.value)}
          />
          <p
            id="signal-payload-hint"
            class={payload.ok ? 'hint' : 'field-problem'}
            role={payload.ok ? undefined : 'alert'}
          >
            {payload.ok
              ? 'Any JSON value; it becomes the payload of the step output. Empty means {}.'
              : payload.message}
          </p>
        </div>
      </ConfirmDialog>
    </section>
  );
}
