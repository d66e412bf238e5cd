/** Placeholder: the Webhooks page is built in its own change (issue 14). */
export function WebhooksPage(_props: { id?: string }) {
  return <h1>Webhooks</h1>;
}
