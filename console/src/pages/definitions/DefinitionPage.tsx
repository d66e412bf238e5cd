/** Placeholder: the Definition page is built in its own change (issue 14). */
export function DefinitionPage(_props: { id?: string }) {
  return <h1>Definition</h1>;
}
