import { useEffect, useState } from 'preact/hooks';
import { formatRelative, formatUtc } from '../format';

/** "3 minutes ago", with the exact UTC time on hover and for assistive technology; kept current. */
export function RelativeTime({ iso }: { iso: string | null | undefined }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(id);
  }, []);
  if (!iso) return <span class="muted">–</span>;
  const exact = formatUtc(iso);
  return (
    <time dateTime={iso} title={exact} aria-label={`${formatRelative(iso, now)} (${exact})`}>
      {formatRelative(iso, now)}
    </time>
  );
}
