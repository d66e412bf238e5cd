/** The Webhooks pages' rules: the registration form's checks and what a delivery offers. */

export const WEBHOOK_EVENTS = [
  'workflow.completed',
  'workflow.failed',
  'workflow.cancelled',
  'approval.requested',
  'approval.decided',
  'approval.expired',
  'approval.escalated',
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface WebhookFormProblems {
  url?: string;
  events?: string;
}

/**
 * The checks the form can make before asking the service (which checks again, with the network rules
 * the browser cannot know): an absolute https URL without credentials, at most 2048 characters, and at
 * least one event.
 */
export function webhookFormProblems(url: string, events: string[]): WebhookFormProblems {
  const problems: WebhookFormProblems = {};
  const trimmed = url.trim();
  let parsed: URL | undefined;
  try {
    parsed = new URL(trimmed);
  } catch {
    parsed = undefined;
  }
  if (!trimmed) problems.url = 'Enter the URL that receives the deliveries.';
  else if (!parsed) problems.url = 'Enter an absolute URL, e.g. https://example.com/hooks.';
  else if (parsed.protocol !== 'https:') problems.url = 'The URL must start with https://.';
  else if (parsed.username || parsed.password)
    problems.url = 'The URL must not contain credentials.';
  else if (trimmed.length > 2048) problems.url = 'The URL can have at most 2048 characters.';
  if (events.length === 0) problems.events = 'Choose at least one event.';
  return problems;
}

/** The status filter of the delivery log, from the URL; anything else means "all". */
export function deliveryStatusFilter(value: string | undefined): DeliveryStatus | undefined {
  return DELIVERY_STATUSES.find((s) => s === value);
}

/** A page number from the URL: a positive integer, 1 otherwise. */
export function pageFromQuery(value: string | undefined): number {
  const n = Number(value);
  return Number.isInteger(n) && n >= 1 && n <= 2_147_483_647 ? n : 1;
}

/** Only a failed delivery can be sent again (the service answers 409 for the others). */
export function canRedeliver(delivery: { status: string }): boolean {
  return delivery.status === 'failed';
}
