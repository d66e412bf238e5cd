import { useEffect, useState } from 'preact/hooks';
import { formatRelative, formatUtc } from '../format';

/** "3 minutes ago", with the exact UTC time on hover and for assistive technology; kept current. */
export function RelativeTime({ iso }: { iso: string | null | undefined }) {
  // Re-rendered every 30 s; the distance is measured at each render, so a time that changes later
  // (a run's updatedAt) is never measured against the moment the component mounted.
  const [, setTick] = useState(0);
  useEffect(() => {
    const id = setInterval(() => setTick((tick) => tick + 1), 30_000);
    return () => clearInterval(id);
  }, []);
  const now = Date.now();
  if (!iso) return <span class="muted">–</span>;
  const exact = formatUtc(iso);
  return (
    <time dateTime={iso} title={exact} aria-label={`${formatRelative(iso, now)} (${exact})`}>
      {formatRelative(iso, now)}
    </time>
  );
}
