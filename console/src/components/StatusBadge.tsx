/** A run or step status as a coloured, text-labelled badge (colour is never the only signal). */
export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge status-${status.toLowerCase()}`}>{status}</span>;
}
