/** Placeholder: the Webhook page is built in its own change (issue 14). */
export function WebhookPage(_props: { id?: string }) {
  return <h1>Webhook</h1>;
}
