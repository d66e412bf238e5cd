/** Placeholder: the Runs page is built in its own change (issue 14). */
export function RunsPage(_props: { id?: string }) {
  return <h1>Runs</h1>;
}
