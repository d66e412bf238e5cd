/** Placeholder: the API keys page is built in its own change (issue 14). */
export function ApiKeysPage(_props: { id?: string }) {
  return <h1>API keys</h1>;
}
