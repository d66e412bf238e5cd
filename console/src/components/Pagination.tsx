/** Previous / next with "page x of y"; the page lives in the URL (the caller's onPage sets it). */
export function Pagination(props: {
  page: number;
  totalPages: number;
  total: number;
  onPage: (page: number) => void;
}) {
  if (props.total === 0) return null;
  return (
    <nav class="pagination" aria-label="Pagination">
      <button
        type="button"
        class="button"
        disabled={props.page <= 1}
        onClick={() => props.onPage(props.page - 1)}
      >
        Previous
      </button>
      <span>
        Page {props.page} of {Math.max(props.totalPages, 1)} ({props.total} in all)
      </span>
      <button
        type="button"
        class="button"
        disabled={props.page >= props.totalPages}
        onClick={() => props.onPage(props.page + 1)}
      >
        Next
      </button>
    </nav>
  );
}
