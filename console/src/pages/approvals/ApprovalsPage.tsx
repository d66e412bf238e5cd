/** Placeholder: the Approvals page is built in its own change (issue 14). */
export function ApprovalsPage(_props: { id?: string }) {
  return <h1>Approvals</h1>;
}
