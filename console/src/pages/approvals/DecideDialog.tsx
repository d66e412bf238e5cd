import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, errorMessage } from '../../api';
import { RelativeTime } from '../../components/RelativeTime';
import { decide, getRequest, type ApprovalDecision, type ApprovalRequest } from './approvals-api';
import { DiffView } from './DiffView';
import { contentDiff, editorText, parseEditedContent, sameContent } from './edit';
import {
  approverNames,
  commentProblem,
  commentToSend,
  MAX_COMMENT_LENGTH,
  quorumProgress,
} from './queue';

export type DecisionKind = 'approve' | 'reject' | 'edit';

const TITLES: Record<DecisionKind, string> = {
  approve: 'Approve this request?',
  reject: 'Reject this request',
  edit: 'Edit the content, then approve',
};

const CONFIRM: Record<DecisionKind, string> = {
  approve: 'Approve',
  reject: 'Reject',
  edit: 'Approve with edits',
};

/** What the dialog learnt when the service answered 409: the request was decided meanwhile. */
interface Conflict {
  /** The request as it is now (undefined when it could not be read). */
  current?: ApprovalRequest;
  message: string;
}

/**
 * The confirmation of a decision, on the native modal <dialog> (focus kept inside, Escape cancels).
 * Approve: confirm only (the focus starts on Approve, so `a` then Enter approves). Reject: an optional
 * comment. Edit: a JSON editor validated as it is typed and the diff against the original.
 * Ctrl+Enter (or Cmd+Enter) confirms from a text field. When the request was decided elsewhere the
 * dialog says by whom and keeps what was typed, read-only, until the reviewer moves on.
 */
export function DecideDialog(props: {
  kind: DecisionKind;
  request: ApprovalRequest;
  onDecided: (decision: ApprovalDecision) => void;
  /** After a conflict: the reviewer has read it and goes on with the queue. */
  onMoveOn: (id: string) => void;
  onCancel: () => void;
}) {
  const { kind, request } = props;
  const dialogRef = useRef<HTMLDialogElement>(null);
  const commentRef = useRef<HTMLTextAreaElement>(null);
  const editorRef = useRef<HTMLTextAreaElement>(null);
  const approveRef = useRef<HTMLButtonElement>(null);
  const moveOnRef = useRef<HTMLButtonElement>(null);
  const [comment, setComment] = useState('');
  const [text, setText] = useState(() => editorText(request.content));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [conflict, setConflict] = useState<Conflict>();

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    if (!dialog.open) dialog.showModal();
    // The focus starts where the reviewer acts: the comment, the editor, or the Approve button.
    (kind === 'approve' ? approveRef : kind === 'reject' ? commentRef : editorRef).current?.focus();
    return () => {
      if (dialog.open) dialog.close();
    };
  }, []);
  useEffect(() => {
    if (conflict) moveOnRef.current?.focus();
  }, [conflict]);

  const parsed = useMemo(
    () => (kind === 'edit' ? parseEditedContent(text) : undefined),
    [kind, text],
  );
  const diff = useMemo(
    () => (parsed?.ok ? contentDiff(request.content, parsed.value) : undefined),
    [parsed, request.content],
  );
  const unchanged = parsed?.ok === true && sameContent(request.content, parsed.value);
  const commentError = kind === 'reject' ? commentProblem(comment) : undefined;
  const problem =
    kind === 'edit'
      ? parsed && !parsed.ok
        ? parsed.error
        : unchanged
          ? 'Nothing is edited yet: change the content, or cancel and approve it as it is.'
          : undefined
      : commentError;
  const canConfirm = !busy && !conflict && problem === undefined;
  const ids = `decide-${request.id}`;

  async function submit() {
    if (!canConfirm) return;
    setBusy(true);
    setError(undefined);
    try {
      const decision = await decide(
        request.id,
        kind === 'approve'
          ? { decision: 'approved' }
          : kind === 'reject'
            ? { decision: 'rejected', comment: commentToSend(comment) }
            : { decision: 'edited', editedContent: parsed?.ok ? parsed.value : {} },
      );
      props.onDecided(decision);
      return;
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) {
        const current = await getRequest(request.id).catch(() => undefined);
        setConflict({ current, message: err.message });
      } else {
        setError(errorMessage(err));
      }
    }
    setBusy(false);
  }

  return (
    <dialog
      ref={dialogRef}
      class={
        kind === 'edit' ? 'dialog approval-dialog approval-dialog-wide' : 'dialog approval-dialog'
      }
      aria-labelledby={`${ids}-title`}
      onCancel={(event) => {
        event.preventDefault();
        if (busy) return;
        if (conflict) props.onMoveOn(request.id);
        else props.onCancel();
      }}
    >
      <form
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            void submit();
          }
        }}
      >
        <h2 id={`${ids}-title`}>{TITLES[kind]}</h2>
        <p class="approval-dialog-subject">
          <span class="muted">Step</span> <strong>{request.stepName}</strong>
          {request.prompt && (
            <>
              {' '}
              <span class="muted">· Prompt</span> {request.prompt}
            </>
          )}
        </p>

        {conflict && <ConflictNotice conflict={conflict} kind={kind} />}

        {kind === 'approve' && !conflict && request.requiredApprovals > 1 && (
          <p>
            Your approval counts toward the {request.requiredApprovals} needed (
            {quorumProgress(request)}
            {approverNames(request).length > 0 && <>: {approverNames(request).join(', ')}</>}). The
            run continues with the content exactly as it is under review once{' '}
            {request.requiredApprovals} reviewers have approved it; one rejection rejects it.
          </p>
        )}
        {kind === 'approve' && !conflict && request.requiredApprovals <= 1 && (
          <p>The run continues with the content exactly as it is under review.</p>
        )}

        {kind === 'reject' && (
          <div class="field">
            <label for={`${ids}-comment`}>Reason (optional)</label>
            <p class="hint" id={`${ids}-comment-hint`}>
              Kept with the decision. The approval step fails; when its retry policy allows, the run
              regenerates the content with this reason at <code>rejection.comment</code>. At most{' '}
              {MAX_COMMENT_LENGTH} characters.
            </p>
            <textarea
              id={`${ids}-comment`}
              ref={commentRef}
              rows={5}
              maxLength={MAX_COMMENT_LENGTH}
              value={comment}
              readOnly={!!conflict}
              aria-invalid={commentError ? 'true' : undefined}
              aria-describedby={`${ids}-comment-hint ${ids}-comment-count`}
              onInput={(event) => setComment(event.currentTarget.value)}
            />
            <p class="hint approval-count" id={`${ids}-comment-count`}>
              {comment.length} / {MAX_COMMENT_LENGTH} characters
            </p>
            {commentError && (
              <p class="approval-field-error" role="alert">
                {commentError}
              </p>
            )}
          </div>
        )}

        {kind === 'edit' && (
          <div class="approval-edit">
            <div class="field">
              <label for={`${ids}-content`}>Content (a JSON object)</label>
              <p class="hint" id={`${ids}-content-hint`}>
                Replaces the run's state at <code>{request.contentKey}</code>. Content that was not
                an object is under review as <code>{'{"value": …}'}</code>; keep that key.
              </p>
              <textarea
                id={`${ids}-content`}
                class="approval-editor"
                ref={editorRef}
                rows={14}
                spellcheck={false}
                value={text}
                readOnly={!!conflict}
                aria-invalid={parsed && !parsed.ok ? 'true' : undefined}
                aria-describedby={`${ids}-content-hint ${ids}-content-problem`}
                onInput={(event) => setText(event.currentTarget.value)}
              />
              <p
                class={parsed && !parsed.ok ? 'approval-field-error' : 'hint'}
                id={`${ids}-content-problem`}
                aria-live="polite"
              >
                {parsed && !parsed.ok ? parsed.error : 'Valid JSON object.'}
              </p>
            </div>
            <div class="approval-diff-pane">
              <h3>Changes</h3>
              {diff ? (
                <DiffView diff={diff} />
              ) : (
                <p class="hint">The changes show once the content is a valid JSON object.</p>
              )}
            </div>
          </div>
        )}

        {error && (
          <p class="error-state" role="alert">
            The decision was not recorded: {error}
          </p>
        )}
        {kind === 'edit' && unchanged && !conflict && <p class="hint">{problem}</p>}

        <div class="dialog-actions">
          {conflict ? (
            <button
              type="button"
              class="button primary"
              ref={moveOnRef}
              onClick={() => props.onMoveOn(request.id)}
            >
              Move on
            </button>
          ) : (
            <>
              <button type="button" class="button" onClick={props.onCancel} disabled={busy}>
                Cancel
              </button>
              <button
                type="submit"
                class={kind === 'reject' ? 'button danger' : 'button primary'}
                ref={approveRef}
                disabled={!canConfirm}
              >
                {busy ? 'Working…' : CONFIRM[kind]}
              </button>
            </>
          )}
        </div>
      </form>
    </dialog>
  );
}

function ConflictNotice({ conflict, kind }: { conflict: Conflict; kind: DecisionKind }) {
  const current = conflict.current;
  const kept =
    kind === 'approve' ? null : (
      <> What you typed is kept below so that you can copy it; it was not sent.</>
    );
  if (current?.decision) {
    return (
      <div class="notice approval-conflict" role="alert">
        <p>
          <strong>
            Already decided: {current.decision} by {current.decidedBy ?? 'someone'}{' '}
          </strong>
          <RelativeTime iso={current.decidedAt} />.{kept}
        </p>
      </div>
    );
  }
  return (
    <div class="notice approval-conflict" role="alert">
      <p>
        <strong>
          {current && current.decision === null && current.expiredAt === null
            ? 'The decision was refused:'
            : 'This request can no longer be decided:'}
        </strong>{' '}
        {conflict.message}
        {kept}
      </p>
    </div>
  );
}
