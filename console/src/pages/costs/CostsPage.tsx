/** Placeholder: the Costs page is built in its own change (issue 14). */
export function CostsPage(_props: { id?: string }) {
  return <h1>Costs</h1>;
}
