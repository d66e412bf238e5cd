import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A modal confirmation on the native <dialog> (focus is trapped and Escape cancels, by the browser).
 * `onConfirm` may be async; the dialog stays open, busy, until it settles.
 */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  /** False disables the confirm button (e.g. while a form inside is invalid). */
  canConfirm?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  children?: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  const titleId = `dialog-title-${props.title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <dialog
      ref={ref}
      class="dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        if (!props.busy) props.onCancel();
      }}
    >
      <form
        method="dialog"
        onSubmit={(event) => {
          event.preventDefault();
          if (!props.busy && props.canConfirm !== false) props.onConfirm();
        }}
      >
        <h2 id={titleId}>{props.title}</h2>
        <div class="dialog-body">{props.children}</div>
        <div class="dialog-actions">
          <button type="button" class="button" onClick={props.onCancel} disabled={props.busy}>
            Cancel
          </button>
          <button
            type="submit"
            class={props.danger ? 'button danger' : 'button primary'}
            disabled={props.busy || props.canConfirm === false}
          >
            {props.busy ? 'Working…' : props.confirmLabel}
          </button>
        </div>
      </form>
    </dialog>
  );
}
