/** Placeholder: the Run page is built in its own change (issue 14). */
export function RunPage(_props: { id?: string }) {
  return <h1>Run</h1>;
}
