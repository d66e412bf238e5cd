import { useEffect, useRef, useState } from 'preact/hooks';
import './api-keys.css';

/**
 * A secret the API answers only once (a new API key, a webhook's signing secret): shown in a read-only
 * field with a copy button and a warning, held in this component's state only (never stored), gone when
 * the user dismisses it or leaves the page. Also used by the Webhooks page.
 */
export function SecretOnce({
  id,
  title,
  label,
  secret,
  warning,
  onDismiss,
}: {
  id: string;
  title: string;
  label: string;
  secret: string;
  warning: string;
  onDismiss: () => void;
}) {
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section class="panel secret-once" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} tabIndex={-1} ref={heading}>
        {title}
      </h2>
      <p class="notice" role="note">
        <strong>Copy it now.</strong> {warning}
      </p>
      <label for={id}>{label}</label>
      <div class="secret-row">
        <input
          id={id}
          class="mono secret-value"
          readOnly
          value={secret}
          onFocus={(event) => event.currentTarget.select()}
        />
        <button
          type="button"
          class="button primary"
          onClick={() => {
            // Undefined outside a secure context; refused when the browser denies the permission.
            if (!navigator.clipboard) {
              setCopy('failed');
              return;
            }
            navigator.clipboard.writeText(secret).then(
              () => setCopy('copied'),
              () => setCopy('failed'),
            );
          }}
        >
          Copy
        </button>
      </div>
      <p class="hint" role="status" aria-live="polite">
        {copy === 'copied' && 'Copied to the clipboard.'}
        {copy === 'failed' &&
          'The browser did not allow copying: select the text in the field and copy it yourself.'}
      </p>
      <button type="button" class="button" onClick={onDismiss}>
        I have saved it, hide it
      </button>
    </section>
  );
}
