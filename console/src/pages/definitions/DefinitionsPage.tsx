/** Placeholder: the Definitions page is built in its own change (issue 14). */
export function DefinitionsPage(_props: { id?: string }) {
  return <h1>Definitions</h1>;
}
