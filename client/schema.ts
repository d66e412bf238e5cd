/**
 * Generated from client/openapi.json (the document the service serves at /openapi.json) by
 * openapi-typescript. Do not edit: change the controllers and DTOs, then run
 * `npm run openapi:generate`. The e2e test test/openapi.e2e-spec.ts fails when this file differs
 * from what the served document gives.
 */
export interface paths {
    "/live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process answers */
        get: operations["HealthController_live"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Health: the process answers; whether the database does
         * @description Always 200 while the process answers; `database` says whether it is reachable.
         */
        get: operations["HealthController_health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: 503 in the error envelope while the database is down */
        get: operations["HealthController_ready"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create a workspace (needs x-admin-token when ADMIN_TOKEN is set) */
        post: operations["WorkspacesController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/current": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The workspace of the calling API key */
        get: operations["WorkspacesController_current"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the workspace keys (never the key itself)
         * @description The calling API key needs the scope `keys:read` (403 FORBIDDEN otherwise).
         */
        get: operations["ApiKeysController_list"];
        put?: never;
        /**
         * Create an API key
         * @description With x-api-key: a key in the caller workspace. Bootstrap: x-admin-token plus workspaceId (ADMIN_TOKEN set), or workspaceId alone while the workspace has no active key (no ADMIN_TOKEN). Without credentials an unknown workspace answers like one that has keys (401), so that workspace ids cannot be probed. `scopes` (default: every scope) must all be held by the calling key: 403 FORBIDDEN `API key lacks scope <scope>` names the first it lacks. The calling API key needs the scope `keys:write` (403 FORBIDDEN otherwise).
         */
        post: operations["ApiKeysController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/api-keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke a key at once
         * @description 409 CONFLICT when the calling key tries to revoke itself (a console session, the key it holds), or when the key is the last active key of the workspace (a workspace keeps at least one active key). 403 FORBIDDEN `API key lacks scope <scope>` when the key has a scope the calling key lacks: a key revokes only keys it could have created. The calling API key needs the scope `keys:write` (403 FORBIDDEN otherwise).
         */
        delete: operations["ApiKeysController_revoke"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflow-definitions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List definitions, newest first (no pagination meta)
         * @description The calling API key needs the scope `definitions:read` (403 FORBIDDEN otherwise).
         */
        get: operations["DefinitionsController_list"];
        put?: never;
        /**
         * Register an immutable, versioned workflow definition
         * @description The calling API key needs the scope `definitions:write` (403 FORBIDDEN otherwise).
         */
        post: operations["DefinitionsController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflow-definitions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get one definition
         * @description The calling API key needs the scope `definitions:read` (403 FORBIDDEN otherwise).
         */
        get: operations["DefinitionsController_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflow-runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List runs, newest first, with pagination meta
         * @description The calling API key needs the scope `runs:read` (403 FORBIDDEN otherwise).
         */
        get: operations["RunsController_list"];
        put?: never;
        /**
         * Start a run (201), or return the run holding the idempotencyKey (200)
         * @description The calling API key needs the scope `runs:write` (403 FORBIDDEN otherwise).
         */
        post: operations["RunsController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflow-runs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get one run, including currentStepIndex and its buffered signals
         * @description The calling API key needs the scope `runs:read` (403 FORBIDDEN otherwise).
         */
        get: operations["RunsController_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflow-runs/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a PENDING, RUNNING, WAITING or PAUSED run
         * @description The calling API key needs the scope `runs:write` (403 FORBIDDEN otherwise).
         */
        post: operations["RunsController_cancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflow-runs/{id}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deliver a signal to a WAITING run
         * @description The calling API key needs the scope `runs:write` (403 FORBIDDEN otherwise).
         */
        post: operations["RunsController_resume"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflow-runs/{id}/signals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a signal to a run that has not ended: delivered now, or buffered for later
         * @description Delivered (as resume would deliver it) when the run is WAITING on an external_event step that takes this signalType; otherwise buffered, and the next external_event step of that type consumes the oldest buffered one as soon as it starts. 409 for a COMPLETED, FAILED or CANCELLED run, and for a run already holding MAX_BUFFERED_SIGNALS_PER_RUN buffered signals. Signals still buffered when the run ends are dropped (SIGNALS_DROPPED). README "Signals". The calling API key needs the scope `runs:write` (403 FORBIDDEN otherwise).
         */
        post: operations["RunsController_signal"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflow-runs/{id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Retry a FAILED run from its failed step
         * @description The calling API key needs the scope `runs:write` (403 FORBIDDEN otherwise).
         */
        post: operations["RunsController_retry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflow-runs/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Run events, oldest first, paginated
         * @description The calling API key needs the scope `runs:read` (403 FORBIDDEN otherwise).
         */
        get: operations["RunsController_events"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflow-runs/{id}/events/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Live run events (Server-Sent Events): the recorded ones, then new ones as recorded
         * @description Same authentication, workspace scoping and 404 as the events list. Opening a stream counts as one request against the rate limit; open streams are capped per workspace (SSE_MAX_STREAMS_PER_WORKSPACE) and per server process (SSE_MAX_STREAMS): 429 beyond. The calling API key needs the scope `runs:read` (403 FORBIDDEN otherwise).
         */
        get: operations["RunsController_stream"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflow-runs/{id}/steps": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The run step runs in execution order
         * @description The calling API key needs the scope `runs:read` (403 FORBIDDEN otherwise).
         */
        get: operations["RunsController_steps"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/schedules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List schedules, newest first, with pagination meta
         * @description The calling API key needs the scope `schedules:read` (403 FORBIDDEN otherwise).
         */
        get: operations["SchedulesController_list"];
        put?: never;
        /**
         * Create a schedule that starts runs of a definition on a cron expression
         * @description A workspace holds at most MAX_SCHEDULES_PER_WORKSPACE (default 1000) schedules (409). An expression that does not parse, never fires or fires more than once a second, an unknown time zone and a definition not in the workspace are 400 naming the field. The calling API key needs the scope `schedules:write` (403 FORBIDDEN otherwise).
         */
        post: operations["SchedulesController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/schedules/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get one schedule with its next fire times
         * @description The calling API key needs the scope `schedules:read` (403 FORBIDDEN otherwise).
         */
        get: operations["SchedulesController_get"];
        put?: never;
        post?: never;
        /**
         * Delete a schedule; it starts no run afterwards. Its runs keep their scheduleId.
         * @description The calling API key needs the scope `schedules:write` (403 FORBIDDEN otherwise).
         */
        delete: operations["SchedulesController_delete"];
        options?: never;
        head?: never;
        /**
         * Change a schedule: pause or resume, cron, timezone, input, policies
         * @description A change of cron, timezone or jitterMs, and a resume, compute the next fire from now; fires missed while paused are not caught up. The calling API key needs the scope `schedules:write` (403 FORBIDDEN otherwise).
         */
        patch: operations["SchedulesController_update"];
        trace?: never;
    };
    "/v1/schedules/{id}/trigger": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a run of the schedule now
         * @description Starts a run with the schedule's definition and input at once, as POST /v1/workflow-runs would, whether the schedule is paused or a run of it is going; the run carries scheduleId. The schedule and its next fires are unchanged. The calling API key needs the scope `schedules:write` (403 FORBIDDEN otherwise).
         */
        post: operations["SchedulesController_trigger"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/approval-requests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List approval requests, newest first by default (no pagination meta)
         * @description `pending=true`: undecided only; `pending=false`: decided only; omitted: all. `assignee`: only the requests for that name or group. `order=oldest` lists the oldest first. One answer holds at most APPROVAL_LIST_MAX_ITEMS (default 500) requests, the first in that order; when there are more, the `Link` header names the next part (`rel="next"`, with `before`, or with order=oldest `after`, set to the last id). The calling API key needs the scope `approvals:read` (403 FORBIDDEN otherwise).
         */
        get: operations["ApprovalsController_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/approval-requests/count": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * How many approval requests await a decision (the console badge)
         * @description Counts the undecided requests of the workspace: as many as `pending=true` lists. The calling API key needs the scope `approvals:read` (403 FORBIDDEN otherwise).
         */
        get: operations["ApprovalsController_count"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/approval-requests/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One approval request, decided or not
         * @description The calling API key needs the scope `approvals:read` (403 FORBIDDEN otherwise).
         */
        get: operations["ApprovalsController_get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/approval-requests/{id}/decide": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Decide an approval request: approved, rejected or edited
         * @description Wakes the paused run. approved: continues with the content as it is. edited: editedContent replaces the state value at contentKey. rejected: the approval step fails; while its retry policy has attempts left the run goes back to regenerateFrom (default: the step before) with `rejection: {decision, comment}` in the state, otherwise the run fails. With `requiredApprovals` N > 1, an approval counts toward the quorum of N distinct deciders and is answered with decision null until the Nth; one rejection decides at once; edited is 409. 409 when the request was already decided, the run is no longer PAUSED (cancelled, for instance), the same decider already approved it, or its timeout is being applied. Through a console session, `decidedBy` is the reviewer name of the session and the body field is ignored. The calling API key needs the scope `approvals:decide` (403 FORBIDDEN otherwise).
         */
        post: operations["ApprovalsController_decide"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflow-runs/{id}/cost": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A run's LLM cost: totals and one entry per completed call
         * @description Every completed call counts, including calls whose answer a guardrail then rejected and calls of attempts that failed later. Computed from exact decimals in the database. The calling API key needs the scope `costs:read` (403 FORBIDDEN otherwise).
         */
        get: operations["CostsController_runCost"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/cost/summary": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The workspace's LLM cost in a time window, by model
         * @description Sums the cost records created in [from, to]. Omitted from: 1970-01-01T00:00:00.000Z; omitted to: the time of the request. from after to is 400. byModel: most expensive first. The calling API key needs the scope `costs:read` (403 FORBIDDEN otherwise).
         */
        get: operations["CostsController_summary"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/cost/timeseries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The workspace's LLM cost over time, by bucket (UTC day or hour) and model
         * @description The summary's window [from, to] (both inclusive; from must be before to), by default the 30 days up to the time of the request; the points of a window add up exactly to the summary of the same window. Buckets without calls are left out. At most COST_SERIES_MAX_BUCKETS (default 1000) buckets: a longer range is 400 naming from. The calling API key needs the scope `costs:read` (403 FORBIDDEN otherwise).
         */
        get: operations["CostsController_series"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/cost/by-definition": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The workspace's LLM cost by workflow definition version
         * @description Sums the cost records created in [from, to] (as the summary: omitted from is 1970-01-01T00:00:00.000Z, omitted to the time of the request) per definition version of their runs, most expensive first; `runs` counts the distinct runs with a call in the window. The calling API key needs the scope `costs:read` (403 FORBIDDEN otherwise).
         */
        get: operations["CostsController_byDefinition"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workspaces/current/budget": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The workspace's monthly LLM budget and what the current month has spent
         * @description The calendar month is UTC. spentUsd sums the cost records of the month (exact decimals, the figure GET /v1/cost/summary gives for periodStart..periodEnd); calls in flight count once recorded. The calling API key needs the scope `costs:read` (403 FORBIDDEN otherwise).
         */
        get: operations["BudgetsController_get"];
        /**
         * Sets the workspace's monthly LLM budget, or removes it with null
         * @description monthlyLimitUsd: a positive number of USD with at most 6 decimal places, at most 1000000000, or null. From then on an LLM call that the month's budget cannot cover does not start (README "Budgets"). Answers the budget as GET does. The calling API key needs the scope `keys:write` (403 FORBIDDEN otherwise).
         */
        put: operations["BudgetsController_put"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the workspace webhooks, newest first (never the secret)
         * @description The calling API key needs the scope `webhooks:read` (403 FORBIDDEN otherwise).
         */
        get: operations["WebhooksController_list"];
        put?: never;
        /**
         * Register a webhook
         * @description HTTPS URL without credentials, at least one event type; at most 20 webhooks per workspace. The answer carries the signing secret, which is never shown again. The calling API key needs the scope `webhooks:write` (403 FORBIDDEN otherwise).
         */
        post: operations["WebhooksController_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a webhook
         * @description No attempt starts after this answer: every pending delivery of the webhook fails at once (lastError "webhook deleted"). The webhook and its delivery log answer 404 afterwards. The calling API key needs the scope `webhooks:write` (403 FORBIDDEN otherwise).
         */
        delete: operations["WebhooksController_delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The delivery log of a webhook, newest first, paginated
         * @description One entry per event sent to the webhook, with its attempts and last outcome. The calling API key needs the scope `webhooks:read` (403 FORBIDDEN otherwise).
         */
        get: operations["WebhooksController_deliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries/{deliveryId}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a failed delivery again
         * @description Back to pending with a fresh attempt budget: the same body and webhook-id, signed afresh. 409 unless the delivery is failed. The calling API key needs the scope `webhooks:write` (403 FORBIDDEN otherwise).
         */
        post: operations["WebhooksController_retry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/console/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The console session of the session cookie
         * @description 401 `console session expired or invalid; sign in again` when the cookie is malformed or expired, when its key was revoked, or when the request authenticated with x-api-key (which has no session); 401 `missing x-api-key header` without cookie and key.
         */
        get: operations["SessionsController_current"];
        put?: never;
        /**
         * Sign in to the console: an API key and a reviewer name become a session cookie
         * @description No x-api-key: the key is in the body, checked exactly like x-api-key. The answer sets the HttpOnly session cookie, which later requests use instead of x-api-key; decisions made with it record `reviewerName` as `decidedBy`. Needs an Origin of this service or of CONSOLE_ALLOWED_ORIGINS (403 FORBIDDEN otherwise). Rate-limited per client address like every request without a valid key. 401 `invalid or revoked API key` for a bad key.
         */
        post: operations["SessionsController_signIn"];
        /**
         * Sign out of the console: clears the session cookie
         * @description Always 200, with or without a valid session. The cookie holds no server-side state, so clearing it ends the session; to make a key that was used in a session useless everywhere, revoke the key.
         */
        delete: operations["SessionsController_signOut"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        LiveDto: {
            /** @enum {string} */
            status: "ok";
        };
        PageMeta: {
            /** @example 1 */
            page: number;
            /** @example 20 */
            pageSize: number;
            /** @example 42 */
            total: number;
            /**
             * @description ceil(total / pageSize)
             * @example 3
             */
            totalPages: number;
        };
        FieldErrorDto: {
            /**
             * @description Path of the field; `body` for the whole body
             * @example steps[2].handler
             */
            field: string;
            /** @example handler must be a string */
            message: string;
        };
        LimitDto: {
            /** @example MAX_RUN_INPUT_BYTES */
            name: string;
            /** @example 262144 */
            value: number;
        };
        ErrorDetails: {
            /** @description Every problem found (400, 409, 413) */
            errors?: components["schemas"]["FieldErrorDto"][];
            /** @description The storage limit that was passed (409, 413), or the cap on open event streams (429) */
            limit?: components["schemas"]["LimitDto"];
        };
        ErrorBody: {
            /** @example VALIDATION_ERROR */
            code: string;
            /** @example name: must be between 1 and 100 characters */
            message: string;
            details?: components["schemas"]["ErrorDetails"];
        };
        ErrorEnvelope: {
            /**
             * @example false
             * @enum {boolean}
             */
            success: false;
            error: components["schemas"]["ErrorBody"];
        };
        HealthDto: {
            /** @enum {string} */
            status: "ok";
            /**
             * @description Whether the database answered within 2 s
             * @enum {string}
             */
            database: "up" | "down";
        };
        ReadyDto: {
            /** @enum {string} */
            status: "ready";
            /** @enum {string} */
            database: "up";
        };
        WorkspaceDto: {
            /** Format: uuid */
            id: string;
            name: string;
            slug: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        CreateWorkspaceDto: {
            /** @example Acme */
            name: string;
            /** @example acme */
            slug: string;
        };
        CreatedApiKeyDto: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspaceId: string;
            name: string;
            /**
             * @description The full key; shown only in this answer
             * @example svc_...
             */
            key: string;
            /**
             * @description What the key may do, in the canonical order of the scope list (README "Scopes"), whatever order they were asked for in
             * @example [
             *       "runs:read",
             *       "approvals:read",
             *       "approvals:decide"
             *     ]
             */
            scopes: ("definitions:read" | "definitions:write" | "runs:read" | "runs:write" | "approvals:read" | "approvals:decide" | "costs:read" | "webhooks:read" | "webhooks:write" | "keys:read" | "keys:write" | "schedules:read" | "schedules:write")[];
            /** Format: date-time */
            createdAt: string;
        };
        CreateApiKeyDto: {
            /** @example ci-pipeline */
            name: string;
            /**
             * Format: uuid
             * @description Bootstrap only (design §2): the workspace to create the first key in, with x-admin-token or, when no ADMIN_TOKEN is configured, while the workspace has no active key.
             */
            workspaceId?: string;
            /**
             * @description What the key may do (README "Scopes"): at least one scope, each once. Default: every scope. A key may create only keys whose scopes it holds itself (403 FORBIDDEN `API key lacks scope <scope>` naming the first it lacks); the first key of a workspace created without credentials (no ADMIN_TOKEN) has every scope.
             * @example [
             *       "runs:read",
             *       "approvals:read",
             *       "approvals:decide"
             *     ]
             */
            scopes?: ("definitions:read" | "definitions:write" | "runs:read" | "runs:write" | "approvals:read" | "approvals:decide" | "costs:read" | "webhooks:read" | "webhooks:write" | "keys:read" | "keys:write" | "schedules:read" | "schedules:write")[];
        };
        ApiKeyDto: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspaceId: string;
            name: string;
            /**
             * @description What the key may do, in the canonical order of the scope list (README "Scopes"), whatever order they were asked for in
             * @example [
             *       "runs:read",
             *       "approvals:read",
             *       "approvals:decide"
             *     ]
             */
            scopes: ("definitions:read" | "definitions:write" | "runs:read" | "runs:write" | "approvals:read" | "approvals:decide" | "costs:read" | "webhooks:read" | "webhooks:write" | "keys:read" | "keys:write" | "schedules:read" | "schedules:write")[];
            /** Format: date-time */
            lastUsedAt: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            revokedAt: string | null;
        };
        RevokedDto: {
            /** @enum {boolean} */
            revoked: true;
        };
        DefinitionDto: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspaceId: string;
            name: string;
            version: string;
            description: string | null;
            steps: ({
                type: string;
                name: string;
            } & {
                [key: string]: unknown;
            })[];
            /** @description As given; absent when not given */
            maxCostUsd?: number;
            /**
             * @description As given; absent when not given
             * @enum {string}
             */
            onBudgetExceeded?: "fail" | "approval";
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        CreateDefinitionDto: {
            /** @example order-fulfilment */
            name: string;
            /** @example 1.0.0 */
            version: string;
            description?: string;
            /**
             * @description Ordered steps; each has type (task, wait, condition, external_event, llm, approval, workflow, map), a unique name and the fields of its type (see README). At most MAX_DEFINITION_BYTES (default 65536) UTF-8 bytes of JSON (413); a workspace holds at most MAX_DEFINITIONS_PER_WORKSPACE (default 500) definitions, every version counting (409).
             * @example [
             *       {
             *         "type": "task",
             *         "name": "prepare",
             *         "handler": "transform",
             *         "config": {
             *           "expression": "{\"n\": 1}"
             *         }
             *       },
             *       {
             *         "type": "external_event",
             *         "name": "await-payment",
             *         "signalType": "payment.received"
             *       }
             *     ]
             */
            steps: ({
                type: string;
                name: string;
            } & {
                [key: string]: unknown;
            })[];
            /**
             * @description The most one run's own LLM calls may cost, in USD (a positive number with at most 6 decimal places). A call it cannot cover does not start; an llm step's own maxCostUsd applies as well.
             * @example 0.5
             */
            maxCostUsd?: number;
            /**
             * @description What a call over a budget (the workspace's month, the run's or the step's maxCostUsd) does: fail the step (without retries), or pause the run on an approval request. An llm step's own onBudgetExceeded wins over this one.
             * @default fail
             * @enum {string}
             */
            onBudgetExceeded?: "fail" | "approval";
        };
        RunDto: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspaceId: string;
            /** Format: uuid */
            definitionId: string;
            /** @enum {string} */
            status: "PENDING" | "RUNNING" | "WAITING" | "PAUSED" | "COMPLETED" | "FAILED" | "CANCELLED";
            input: {
                [key: string]: unknown;
            };
            output: {
                [key: string]: unknown;
            } | null;
            /** @description Why the run failed */
            error: string | null;
            idempotencyKey: string | null;
            /**
             * Format: uuid
             * @description The run whose workflow step started this one (a child run); null otherwise
             */
            parentRunId: string | null;
            /**
             * Format: uuid
             * @description The step run of the parent that started this run; null for a run without parent
             */
            parentStepRunId: string | null;
            /** @description Present in the single-run read only: the index of the step in progress, or of the last one executed once the run is terminal */
            currentStepIndex?: number;
            /**
             * Format: uuid
             * @description The schedule that started the run; null for a run started through the API
             */
            scheduleId: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        CreateRunDto: {
            /** Format: uuid */
            definitionId: string;
            /**
             * @description Any JSON object, kept exactly as given (keys such as __proto__ are data); at most MAX_RUN_INPUT_BYTES (default 262144) UTF-8 bytes of JSON, 413 otherwise
             * @default {}
             */
            input?: {
                [key: string]: unknown;
            };
            idempotencyKey?: string;
        };
        BufferedSignalDto: {
            /** Format: uuid */
            id: string;
            signalType: string;
            /** @description UTF-8 bytes of the payload as JSON */
            payloadBytes: number;
            /** @description The payload's JSON text, cut after 200 characters (then ending in …); the whole payload is in the step output and the SIGNAL_RECEIVED event once a step takes it */
            payloadPreview: string;
            /**
             * Format: date-time
             * @description When the service accepted the signal
             */
            receivedAt: string;
        };
        RunDetailDto: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspaceId: string;
            /** Format: uuid */
            definitionId: string;
            /** @enum {string} */
            status: "PENDING" | "RUNNING" | "WAITING" | "PAUSED" | "COMPLETED" | "FAILED" | "CANCELLED";
            input: {
                [key: string]: unknown;
            };
            output: {
                [key: string]: unknown;
            } | null;
            /** @description Why the run failed */
            error: string | null;
            idempotencyKey: string | null;
            /**
             * Format: uuid
             * @description The run whose workflow step started this one (a child run); null otherwise
             */
            parentRunId: string | null;
            /**
             * Format: uuid
             * @description The step run of the parent that started this run; null for a run without parent
             */
            parentStepRunId: string | null;
            /** @description Present in the single-run read only: the index of the step in progress, or of the last one executed once the run is terminal */
            currentStepIndex?: number;
            /**
             * Format: uuid
             * @description The schedule that started the run; null for a run started through the API
             */
            scheduleId: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            /** @description Signals waiting for an external_event step of their type, oldest first (the order they are consumed in); always present, empty when there are none */
            bufferedSignals: components["schemas"]["BufferedSignalDto"][];
        };
        RunTransitionDto: {
            /** Format: uuid */
            id: string;
            /** @enum {string} */
            status: "PENDING" | "RUNNING" | "WAITING" | "PAUSED" | "COMPLETED" | "FAILED" | "CANCELLED";
            /** Format: date-time */
            updatedAt: string;
        };
        ResumeRunDto: {
            /** @example payment.received */
            signalType: string;
            /**
             * @description Any JSON object, kept exactly as given; at most MAX_SIGNAL_PAYLOAD_BYTES (default 65536) UTF-8 bytes of JSON, 413 otherwise
             * @default {}
             */
            payload?: {
                [key: string]: unknown;
            };
        };
        SignalDto: {
            /**
             * Format: uuid
             * @description The signal's id (in its events)
             */
            id: string;
            signalType: string;
            /**
             * @description delivered: the run was waiting on an external_event step of this type and goes on with it, as after a resume; buffered: kept for the next external_event step of this type
             * @enum {string}
             */
            status: "delivered" | "buffered";
        };
        SendSignalDto: {
            /**
             * @description The signal's type (1-100 characters, as an external_event step's signalType): a step consumes the signals of its own type (a step without signalType takes any)
             * @example payment.received
             */
            signalType: string;
            /**
             * @description Any JSON value (default {}), kept exactly as given; it becomes the payload of the step's output. At most MAX_SIGNAL_PAYLOAD_BYTES (default 65536) UTF-8 bytes of JSON, 413 otherwise
             * @default {}
             */
            payload?: ({
                [key: string]: unknown;
            } | unknown[] | string | number | boolean) | null;
        };
        RunEventDto: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workflowRunId: string;
            /** Format: uuid */
            stepRunId: string | null;
            /** @enum {string} */
            eventType: "WORKFLOW_STARTED" | "WORKFLOW_COMPLETED" | "WORKFLOW_FAILED" | "WORKFLOW_CANCELLED" | "STEP_STARTED" | "STEP_COMPLETED" | "STEP_FAILED" | "STEP_RETRYING" | "LLM_CALL_STARTED" | "LLM_CALL_COMPLETED" | "LLM_CALL_FAILED" | "LLM_FALLBACK_TRIGGERED" | "GUARDRAIL_TRIGGERED" | "TOOL_CALL_EXECUTED" | "APPROVAL_REQUESTED" | "APPROVAL_DECIDED" | "SIGNAL_RECEIVED" | "CHILD_RUN_STARTED" | "CHILD_RUN_FINISHED" | "MAP_ITEM_COMPLETED" | "MAP_ITEM_FAILED" | "APPROVAL_VOTE_RECORDED" | "APPROVAL_EXPIRED" | "APPROVAL_ESCALATED" | "SIGNAL_BUFFERED" | "SIGNALS_DROPPED" | "BUDGET_EXCEEDED";
            payload: {
                [key: string]: unknown;
            };
            /** Format: date-time */
            createdAt: string;
        };
        StepRunDto: {
            /** Format: uuid */
            id: string;
            stepIndex: number;
            stepName: string;
            stepType: string;
            /** @enum {string} */
            status: "PENDING" | "RUNNING" | "WAITING" | "COMPLETED" | "FAILED" | "CANCELLED";
            /** @description Counted from 1 */
            attempt: number;
            output: {
                [key: string]: unknown;
            } | null;
            error: string | null;
            /** Format: date-time */
            startedAt: string | null;
            /** Format: date-time */
            completedAt: string | null;
        };
        ScheduleDto: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspaceId: string;
            /** Format: uuid */
            definitionId: string;
            name: string | null;
            /** @description Cron expression: 5 fields (minute hour day-of-month month day-of-week), or 6 with seconds first. Lists, ranges, steps and names (`MON-FRI`, `JAN`) as in crontab; `L`, `W` and `#` as croner reads them. Evaluated in `timezone`, DST included. Never more often than once a second. */
            cron: string;
            /** @description IANA time zone name (`Europe/Berlin`), answered as the runtime spells it */
            timezone: string;
            input: {
                [key: string]: unknown;
            };
            /**
             * @description While a run this schedule started is not finished: `skip` passes fires over, `buffer_one` remembers one fire and starts it when the run ends (further fires are passed over), `allow` starts every fire
             * @enum {string}
             */
            overlapPolicy: "skip" | "buffer_one" | "allow";
            /** @description After every replica was down: the latest missed fire starts once if it is at most this old (older missed fires are counted in skippedFires). A fire is never missed less than 10 s late. */
            catchupWindowMs: number;
            /** @description Each fire starts up to this much later, by a delay fixed per fire (the same on every replica) */
            jitterMs: number;
            paused: boolean;
            /** @description The next 5 fire times (ISO UTC, before jitter); empty while paused or when the expression fires no more */
            nextFireTimes: string[];
            /**
             * Format: date-time
             * @description The fire time of the latest run the schedule started (trigger now not included)
             */
            lastFiredAt: string | null;
            /**
             * Format: date-time
             * @description A fire buffer_one holds until the running run ends
             */
            bufferedFireAt: string | null;
            /** @description Fires that started no run: refused by the overlap policy, or missed beyond the catch-up window (counted up to 1000 per outage) */
            skippedFires: number;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
        };
        CreateScheduleDto: {
            /** Format: uuid */
            definitionId: string;
            /** @example nightly batch */
            name?: string;
            /**
             * @description Cron expression: 5 fields (minute hour day-of-month month day-of-week), or 6 with seconds first. Lists, ranges, steps and names (`MON-FRI`, `JAN`) as in crontab; `L`, `W` and `#` as croner reads them. Evaluated in `timezone`, DST included. Never more often than once a second.
             * @example 0 2 * * *
             */
            cron: string;
            /**
             * @description IANA time zone name (`Europe/Berlin`), answered as the runtime spells it
             * @default UTC
             */
            timezone?: string;
            /**
             * @description The input of every run the schedule starts: any JSON object, kept exactly as given; at most MAX_RUN_INPUT_BYTES (default 262144) UTF-8 bytes of JSON, 413 otherwise
             * @default {}
             */
            input?: {
                [key: string]: unknown;
            };
            /**
             * @description While a run this schedule started is not finished: `skip` passes fires over, `buffer_one` remembers one fire and starts it when the run ends (further fires are passed over), `allow` starts every fire
             * @default skip
             * @enum {string}
             */
            overlapPolicy?: "skip" | "buffer_one" | "allow";
            /**
             * @description After every replica was down: the latest missed fire starts once if it is at most this old (older missed fires are counted in skippedFires). A fire is never missed less than 10 s late.
             * @default 60000
             */
            catchupWindowMs?: number;
            /**
             * @description A paused schedule starts no runs
             * @default false
             */
            paused?: boolean;
            /**
             * @description Each fire starts up to this much later, by a delay fixed per fire (the same on every replica)
             * @default 0
             */
            jitterMs?: number;
        };
        UpdateScheduleDto: {
            name?: string | null;
            /** @description Cron expression: 5 fields (minute hour day-of-month month day-of-week), or 6 with seconds first. Lists, ranges, steps and names (`MON-FRI`, `JAN`) as in crontab; `L`, `W` and `#` as croner reads them. Evaluated in `timezone`, DST included. Never more often than once a second. */
            cron?: string;
            /** @description IANA time zone name (`Europe/Berlin`), answered as the runtime spells it */
            timezone?: string;
            /** @description The input of every run the schedule starts: any JSON object, kept exactly as given; at most MAX_RUN_INPUT_BYTES (default 262144) UTF-8 bytes of JSON, 413 otherwise */
            input?: {
                [key: string]: unknown;
            };
            /**
             * @description While a run this schedule started is not finished: `skip` passes fires over, `buffer_one` remembers one fire and starts it when the run ends (further fires are passed over), `allow` starts every fire
             * @enum {string}
             */
            overlapPolicy?: "skip" | "buffer_one" | "allow";
            /** @description After every replica was down: the latest missed fire starts once if it is at most this old (older missed fires are counted in skippedFires). A fire is never missed less than 10 s late. */
            catchupWindowMs?: number;
            /** @description true pauses the schedule; false resumes it */
            paused?: boolean;
            /** @description Each fire starts up to this much later, by a delay fixed per fire (the same on every replica) */
            jitterMs?: number;
        };
        DeletedScheduleDto: {
            /** Format: uuid */
            id: string;
            /** @enum {boolean} */
            deleted: true;
        };
        ApprovalVoteDto: {
            decidedBy: string;
            /** @enum {string} */
            decision: "approved" | "rejected" | "edited";
            /** Format: date-time */
            decidedAt: string;
            comment: string | null;
        };
        ApprovalRequestDto: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workflowRunId: string;
            /** Format: uuid */
            stepRunId: string;
            stepName: string;
            /** @example draft.text */
            contentKey: string;
            /** @description The state value at contentKey; a non-object is wrapped as `{value}` */
            content: {
                [key: string]: unknown;
            };
            prompt: string;
            /** @enum {string|null} */
            decision: "approved" | "rejected" | "edited" | null;
            decidedBy: string | null;
            /** Format: date-time */
            decidedAt: string | null;
            comment: string | null;
            editedContent: {
                [key: string]: unknown;
            } | null;
            /** Format: date-time */
            createdAt: string;
            /** @description Names or groups the request is for (the step's `assignees`; `[]` without). After an escalation, the escalated ones (`escalateTo.assignees`); the earlier ones are in `escalatedFrom`. */
            assignees: string[];
            /** @description Distinct deciders who must approve (the step's `requiredApprovals`, default 1) */
            requiredApprovals: number;
            /** @description The reviewers' decisions so far, oldest first: each approval toward the quorum, then the decision that decided the request. A decision made by a timeout is not one of them. */
            approvals: components["schemas"]["ApprovalVoteDto"][];
            /**
             * Format: date-time
             * @description When the request times out (null without a timeout); after an escalation, the second timeout
             */
            expiresAt: string | null;
            /**
             * @description What its last timeout does (null without a timeout)
             * @enum {string|null}
             */
            onTimeout: "reject" | "approve" | "fail" | null;
            /**
             * Format: date-time
             * @description When its first timeout escalated it to `escalateTo.assignees` (null: not escalated)
             */
            escalatedAt: string | null;
            /** @description The assignees before the escalation (null: not escalated) */
            escalatedFrom: string[] | null;
            /**
             * Format: date-time
             * @description When it expired, undecided at its last timeout (null otherwise); its `onTimeout` then applied: `reject` and `approve` decided it as `system:timeout`, `fail` left it undecided
             */
            expiredAt: string | null;
        };
        ApprovalCountDto: {
            /** @description Undecided requests: as many as `pending=true` lists */
            pending: number;
        };
        ApprovalDecisionDto: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workflowRunId: string;
            /** Format: uuid */
            stepRunId: string;
            stepName: string;
            /**
             * @description The request's decision. Null only after an approval short of a quorum (`requiredApprovals` > 1): the request is still undecided and `approvals` shows the progress.
             * @enum {string|null}
             */
            decision: "approved" | "rejected" | "edited" | null;
            /** @description Null while undecided (see decision) */
            decidedBy: string | null;
            /**
             * Format: date-time
             * @description Null while undecided (see decision)
             */
            decidedAt: string | null;
            /** Format: date-time */
            createdAt: string;
            requiredApprovals: number;
            /** @description The reviewers' decisions so far, this one last */
            approvals: components["schemas"]["ApprovalVoteDto"][];
        };
        DecideApprovalDto: {
            /** @enum {string} */
            decision: "approved" | "rejected" | "edited";
            /** @description Required when decision is `edited`: replaces the state value at the step's contentKey. When the content under review was wrapped as `{value}` (the state value was not an object), `{value: x}` puts `x` back. Ignored for other decisions. Kept exactly as given; at most MAX_APPROVAL_CONTENT_BYTES (default 65536) UTF-8 bytes of JSON, 413 otherwise. */
            editedContent?: {
                [key: string]: unknown;
            };
            /** @description Who decided; default `api-key:<id of the calling key>`. Ignored through a console session, whose reviewer name is recorded instead. */
            decidedBy?: string;
            /** @description Reviewer comment. On a rejection with regeneration it is put in the state at `rejection.comment`, so the regenerating step can be prompted with it. */
            comment?: string;
        };
        CostCallDto: {
            stepName: string;
            /**
             * @description As written in the step
             * @example openai:gpt-4o-mini
             */
            model: string;
            inputTokens: number;
            outputTokens: number;
            /** @example 0.0005253 */
            costUsd: number;
            /**
             * Format: date-time
             * @description When the provider answered
             */
            createdAt: string;
        };
        ChildRunCostDto: {
            /** Format: uuid */
            workflowRunId: string;
            /**
             * Format: uuid
             * @description The run whose workflow step started it
             */
            parentRunId: string;
            totalCostUsd: number;
            totalInputTokens: number;
            totalOutputTokens: number;
            /** @description The child run's own calls, oldest first */
            calls: components["schemas"]["CostCallDto"][];
        };
        RunCostDto: {
            /** Format: uuid */
            workflowRunId: string;
            /** @example 0.0005253 */
            totalCostUsd: number;
            totalInputTokens: number;
            totalOutputTokens: number;
            /** @description One per completed LLM call, oldest first */
            calls: components["schemas"]["CostCallDto"][];
            /** @description Every descendant run started by workflow steps (children, their children...), oldest first, each with its own calls; the totals and calls above are the run's own */
            childRuns: components["schemas"]["ChildRunCostDto"][];
            /** @description totalCostUsd plus that of every descendant run */
            totalWithChildrenCostUsd: number;
            totalWithChildrenInputTokens: number;
            totalWithChildrenOutputTokens: number;
        };
        ModelCostDto: {
            model: string;
            costUsd: number;
            inputTokens: number;
            outputTokens: number;
            /** @description Completed calls */
            calls: number;
        };
        CostSummaryDto: {
            /** Format: uuid */
            workspaceId: string;
            /**
             * @description ISO 8601 UTC timestamp with milliseconds; a year outside 0000-9999 is written expanded, e.g. +010000-01-01T13:59:59.999Z
             * @example 1970-01-01T00:00:00.000Z
             */
            from: string;
            /**
             * @description ISO 8601 UTC timestamp with milliseconds; a year outside 0000-9999 is written expanded, e.g. +010000-01-01T13:59:59.999Z
             * @example 2025-01-31T00:00:00.000Z
             */
            to: string;
            totalCostUsd: number;
            totalInputTokens: number;
            totalOutputTokens: number;
            /** @description Distinct runs with at least one cost record in the window */
            totalRuns: number;
            /** @description Most expensive model first */
            byModel: components["schemas"]["ModelCostDto"][];
        };
        CostSeriesPointDto: {
            /**
             * Format: date-time
             * @description Start of the bucket, UTC
             */
            start: string;
            /**
             * @description As written in the step
             * @example openai:gpt-4o-mini
             */
            model: string;
            costUsd: number;
            inputTokens: number;
            outputTokens: number;
            /** @description Completed calls */
            calls: number;
        };
        CostSeriesDto: {
            /** Format: uuid */
            workspaceId: string;
            /** @description ISO 8601 UTC timestamp with milliseconds; a year outside 0000-9999 is written expanded, e.g. +010000-01-01T13:59:59.999Z */
            from: string;
            /** @description ISO 8601 UTC timestamp with milliseconds; a year outside 0000-9999 is written expanded, e.g. +010000-01-01T13:59:59.999Z */
            to: string;
            /** @enum {string} */
            bucket: "day" | "hour";
            /** @description One point per bucket and model that had calls (empty buckets are left out), ordered by start, then model */
            points: components["schemas"]["CostSeriesPointDto"][];
        };
        DefinitionCostDto: {
            /** Format: uuid */
            definitionId: string;
            name: string;
            version: string;
            costUsd: number;
            inputTokens: number;
            outputTokens: number;
            /** @description Completed calls */
            calls: number;
            /** @description Distinct runs of this definition version with a call in the window */
            runs: number;
        };
        CostByDefinitionDto: {
            /** Format: uuid */
            workspaceId: string;
            /** @description ISO 8601 UTC timestamp with milliseconds; a year outside 0000-9999 is written expanded, e.g. +010000-01-01T13:59:59.999Z */
            from: string;
            /** @description ISO 8601 UTC timestamp with milliseconds; a year outside 0000-9999 is written expanded, e.g. +010000-01-01T13:59:59.999Z */
            to: string;
            /** @description One entry per definition version with calls in the window, most expensive first */
            definitions: components["schemas"]["DefinitionCostDto"][];
        };
        BudgetDto: {
            /**
             * @description The workspace's LLM budget per calendar month (UTC); null when it has none
             * @example 25
             */
            monthlyLimitUsd: number | null;
            /**
             * @description Recorded LLM cost of the month so far (calls in flight not included): the totalCostUsd of GET /v1/cost/summary?from=<periodStart>&to=<periodEnd>
             * @example 3.141592
             */
            spentUsd: number;
            /**
             * Format: date-time
             * @description First millisecond of the current calendar month, UTC
             * @example 2026-11-01T00:00:00.000Z
             */
            periodStart: string;
            /**
             * Format: date-time
             * @description Last millisecond of the current calendar month, UTC (inclusive)
             * @example 2026-11-30T23:59:59.999Z
             */
            periodEnd: string;
        };
        PutBudgetDto: {
            /**
             * @description A positive number of USD with at most 6 decimal places, at most 1000000000; null removes the budget. Required.
             * @example 25
             */
            monthlyLimitUsd: number | null;
        };
        WebhookEventPayloadDto: {
            /** @enum {string} */
            event: "workflow.completed" | "workflow.failed" | "workflow.cancelled" | "approval.requested" | "approval.decided" | "approval.expired" | "approval.escalated";
            /** Format: uuid */
            workflowRunId: string;
            /** Format: uuid */
            workspaceId: string;
            /**
             * @description workflow.completed: {status, output, completedAt}; workflow.failed: {status, error, failedStep, failedAt}; workflow.cancelled: {status, cancelledAt}; approval.requested: {approvalRequestId, stepName, contentKey, content, prompt} (with an approval policy also assignees, requiredApprovals, expiresAt); approval.decided: {approvalRequestId, stepName, decision, decidedBy, decidedAt}; approval.expired: {approvalRequestId, stepName, onTimeout, assignees, approvals, requiredApprovals, expiresAt, expiredAt}; approval.escalated: {approvalRequestId, stepName, assignees, escalatedFrom, escalatedAt, expiresAt}
             * @example {
             *       "status": "COMPLETED",
             *       "output": {
             *         "total": 42
             *       },
             *       "completedAt": "2025-01-01T12:00:00.000Z"
             *     }
             */
            data: {
                [key: string]: unknown;
            };
            /**
             * Format: date-time
             * @description When the event happened
             */
            timestamp: string;
        };
        CreatedWebhookDto: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspaceId: string;
            /** @example https://example.com/hooks/workflows */
            url: string;
            events: ("workflow.completed" | "workflow.failed" | "workflow.cancelled" | "approval.requested" | "approval.decided" | "approval.expired" | "approval.escalated")[];
            /** @example true */
            isActive: boolean;
            /** Format: date-time */
            createdAt: string;
            /**
             * @description Signing secret: `whsec_` + base64 of 32 random bytes. Shown only in this answer. Key for X-Webhook-Signature (as written) and for the Standard Webhooks headers (the decoded bytes).
             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw3vUN6HdpeTg=
             */
            secret: string;
        };
        CreateWebhookDto: {
            /**
             * @description Absolute https URL without credentials. Deliveries to loopback, private, link-local and metadata addresses are refused unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true.
             * @example https://example.com/hooks/workflows
             */
            url: string;
            /**
             * @description Event types to receive (at least one, no duplicates)
             * @example [
             *       "workflow.completed",
             *       "workflow.failed"
             *     ]
             */
            events: ("workflow.completed" | "workflow.failed" | "workflow.cancelled" | "approval.requested" | "approval.decided" | "approval.expired" | "approval.escalated")[];
        };
        WebhookDto: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            workspaceId: string;
            /** @example https://example.com/hooks/workflows */
            url: string;
            events: ("workflow.completed" | "workflow.failed" | "workflow.cancelled" | "approval.requested" | "approval.decided" | "approval.expired" | "approval.escalated")[];
            /** @example true */
            isActive: boolean;
            /** Format: date-time */
            createdAt: string;
        };
        DeletedWebhookDto: {
            /** Format: uuid */
            id: string;
            /** @enum {boolean} */
            deleted: true;
        };
        WebhookDeliveryDto: {
            /** Format: uuid */
            id: string;
            /** Format: uuid */
            webhookId: string;
            /**
             * @description The `webhook-id` header: one per event, the same on every attempt
             * @example msg_2f1c0e6a9b7d4e0f8a1b2c3d4e5f6a7b
             */
            messageId: string;
            /** @enum {string} */
            event: "workflow.completed" | "workflow.failed" | "workflow.cancelled" | "approval.requested" | "approval.decided" | "approval.expired" | "approval.escalated";
            /** Format: uuid */
            workflowRunId: string | null;
            /**
             * @description pending: waiting for its next attempt or being sent; delivered: a 2xx answer; failed: every attempt failed or the webhook was deleted
             * @enum {string}
             */
            status: "pending" | "delivered" | "failed";
            /** @description Attempts made so far (counted when an attempt starts) */
            attempts: number;
            /** @description HTTP status of the last answer */
            lastStatusCode: number | null;
            /** @description Why the last attempt failed (status and start of the answer, timeout, refused...) */
            lastError: string | null;
            /**
             * Format: date-time
             * @description When the next attempt is due; while an attempt is in flight, when it is retried should its sender stop. Null once delivered or failed.
             */
            nextAttemptAt: string | null;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            deliveredAt: string | null;
        };
        SessionDto: {
            /** Format: uuid */
            workspaceId: string;
            workspaceName: string;
            /**
             * Format: uuid
             * @description The API key the session holds
             */
            keyId: string;
            keyName: string;
            /** @description The scopes of the key the session holds, in canonical order (README "Scopes"): the console offers only what they allow */
            scopes: ("definitions:read" | "definitions:write" | "runs:read" | "runs:write" | "approvals:read" | "approvals:decide" | "costs:read" | "webhooks:read" | "webhooks:write" | "keys:read" | "keys:write" | "schedules:read" | "schedules:write")[];
            /** @description Recorded as `decidedBy` of the decisions made in this session */
            reviewerName: string;
            /**
             * Format: date-time
             * @description When the session cookie stops being accepted
             */
            expiresAt: string;
        };
        SignInDto: {
            /**
             * @description An API key of the workspace, checked like x-api-key (never a revoked one)
             * @example svc_...
             */
            apiKey: string;
            /**
             * @description Who is signing in: decisions made in this session record it as `decidedBy`. Trimmed; 1-100 characters, no control characters. Self-declared, like `decidedBy` in the API.
             * @example Ada Lovelace
             */
            reviewerName: string;
        };
        SignedOutDto: {
            /** @enum {boolean} */
            signedOut: true;
        };
        /** @description The error envelope of a 400 answer */
        ValidationErrorEnvelope: components["schemas"]["ErrorEnvelope"] & {
            error?: {
                /** @enum {string} */
                code: "VALIDATION_ERROR";
            };
        };
        /** @description The error envelope of a 401 answer */
        AuthErrorEnvelope: components["schemas"]["ErrorEnvelope"] & {
            error?: {
                /** @enum {string} */
                code: "AUTH_ERROR";
            };
        };
        /** @description The error envelope of a 403 answer */
        ForbiddenEnvelope: components["schemas"]["ErrorEnvelope"] & {
            error?: {
                /** @enum {string} */
                code: "FORBIDDEN";
            };
        };
        /** @description The error envelope of a 404 answer */
        NotFoundEnvelope: components["schemas"]["ErrorEnvelope"] & {
            error?: {
                /** @enum {string} */
                code: "NOT_FOUND";
            };
        };
        /** @description The error envelope of a 409 answer */
        ConflictEnvelope: components["schemas"]["ErrorEnvelope"] & {
            error?: {
                /** @enum {string} */
                code: "CONFLICT";
            };
        };
        /** @description The error envelope of a 413 answer */
        PayloadTooLargeEnvelope: components["schemas"]["ErrorEnvelope"] & {
            error?: {
                /** @enum {string} */
                code: "PAYLOAD_TOO_LARGE";
            };
        };
        /** @description The error envelope of a 415 answer */
        UnsupportedMediaTypeEnvelope: components["schemas"]["ErrorEnvelope"] & {
            error?: {
                /** @enum {string} */
                code: "UNSUPPORTED_MEDIA_TYPE";
            };
        };
        /** @description The error envelope of a 422 answer */
        IdempotencyKeyReusedEnvelope: components["schemas"]["ErrorEnvelope"] & {
            error?: {
                /** @enum {string} */
                code: "IDEMPOTENCY_KEY_REUSED";
            };
        };
        /** @description The error envelope of a 429 answer */
        RateLimitErrorEnvelope: components["schemas"]["ErrorEnvelope"] & {
            error?: {
                /** @enum {string} */
                code: "RATE_LIMIT_ERROR";
            };
        };
        /** @description The error envelope of a 500 answer */
        InternalErrorEnvelope: components["schemas"]["ErrorEnvelope"] & {
            error?: {
                /** @enum {string} */
                code: "INTERNAL_ERROR";
            };
        };
        /** @description The error envelope of a 503 answer */
        ServiceUnavailableEnvelope: components["schemas"]["ErrorEnvelope"] & {
            error?: {
                /** @enum {string} */
                code: "SERVICE_UNAVAILABLE";
            };
        };
    };
    responses: never;
    parameters: {
        /** @description 1-255 printable ASCII characters (a UUID v4 is a good choice), bare or as a quoted string (`"…"`, IETF draft-ietf-httpapi-idempotency-key-header), sent once. The same key with the same request (method, path and query, canonical JSON body) within IDEMPOTENCY_KEY_TTL_MS (24 h) answers the first answer again with `Idempotency-Replayed: true` and changes nothing; with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, the request waits for its answer (IDEMPOTENCY_WAIT_MS), then 409. Keys are per workspace (per client address without an API key). Stored and replayed: 2xx and the 4xx answers other than 400, 401, 403, 413, 415, 422 and 429; never 5xx, nor an answer that sets a cookie. README "Idempotent requests". */
        IdempotencyKey: string;
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    HealthController_live: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["LiveDto"];
                    };
                };
            };
        };
    };
    HealthController_health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["HealthDto"];
                    };
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
        };
    };
    HealthController_ready: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["ReadyDto"];
                    };
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    WorkspacesController_create: {
        parameters: {
            query?: never;
            header?: {
                "x-admin-token"?: string;
                /** @description 1-255 printable ASCII characters (a UUID v4 is a good choice), bare or as a quoted string (`"…"`, IETF draft-ietf-httpapi-idempotency-key-header), sent once. The same key with the same request (method, path and query, canonical JSON body) within IDEMPOTENCY_KEY_TTL_MS (24 h) answers the first answer again with `Idempotency-Replayed: true` and changes nothing; with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, the request waits for its answer (IDEMPOTENCY_WAIT_MS), then 409. Keys are per workspace (per client address without an API key). Stored and replayed: 2xx and the 4xx answers other than 400, 401, 403, 413, 415, 422 and 429; never 5xx, nor an answer that sets a cookie. README "Idempotent requests". */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateWorkspaceDto"];
            };
        };
        responses: {
            201: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["WorkspaceDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description CONFLICT: duplicate, not allowed in the current state, or a workspace count limit reached; or a request with this Idempotency-Key is still in progress */
            409: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConflictEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: body over 1 MiB, or a value over its storage limit (details.limit names it) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PayloadTooLargeEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: a body whose Content-Type is not application/json (UTF-8) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnsupportedMediaTypeEnvelope"];
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was first used for another request (method, path, body, or API key when the answer holds a secret) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyKeyReusedEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    WorkspacesController_current: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["WorkspaceDto"];
                    };
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    ApiKeysController_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["ApiKeyDto"][];
                    };
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope keys:read`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    ApiKeysController_create: {
        parameters: {
            query?: never;
            header?: {
                "x-admin-token"?: string;
                /** @description 1-255 printable ASCII characters (a UUID v4 is a good choice), bare or as a quoted string (`"…"`, IETF draft-ietf-httpapi-idempotency-key-header), sent once. The same key with the same request (method, path and query, canonical JSON body) within IDEMPOTENCY_KEY_TTL_MS (24 h) answers the first answer again with `Idempotency-Replayed: true` and changes nothing; with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, the request waits for its answer (IDEMPOTENCY_WAIT_MS), then 409. Keys are per workspace (per client address without an API key). Stored and replayed: 2xx and the 4xx answers other than 400, 401, 403, 413, 415, 422 and 429; never 5xx, nor an answer that sets a cookie. README "Idempotent requests". */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateApiKeyDto"];
            };
        };
        responses: {
            /** @description With an Idempotency-Key, this answer (it holds the key) is never stored: a repeated Idempotency-Key is answered 409 naming the API key. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["CreatedApiKeyDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope keys:write`); or a change through the console session cookie whose Origin is not this service: cross-site request refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description CONFLICT: a request with this Idempotency-Key is still in progress; or a repeated Idempotency-Key whose first answer (the API key with its key) is not stored */
            409: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConflictEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: body over 1 MiB, or a value over its storage limit (details.limit names it) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PayloadTooLargeEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: a body whose Content-Type is not application/json (UTF-8) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnsupportedMediaTypeEnvelope"];
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was first used for another request (method, path, body, or API key when the answer holds a secret) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyKeyReusedEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    ApiKeysController_revoke: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable ASCII characters (a UUID v4 is a good choice), bare or as a quoted string (`"…"`, IETF draft-ietf-httpapi-idempotency-key-header), sent once. The same key with the same request (method, path and query, canonical JSON body) within IDEMPOTENCY_KEY_TTL_MS (24 h) answers the first answer again with `Idempotency-Replayed: true` and changes nothing; with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, the request waits for its answer (IDEMPOTENCY_WAIT_MS), then 409. Keys are per workspace (per client address without an API key). Stored and replayed: 2xx and the 4xx answers other than 400, 401, 403, 413, 415, 422 and 429; never 5xx, nor an answer that sets a cookie. README "Idempotent requests". */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["RevokedDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: a malformed Idempotency-Key header (details.errors names it) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope keys:write`); or a change through the console session cookie whose Origin is not this service: cross-site request refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description CONFLICT: duplicate, not allowed in the current state, or a workspace count limit reached; or a request with this Idempotency-Key is still in progress */
            409: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConflictEnvelope"];
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was first used for another request (method, path, body, or API key when the answer holds a secret) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyKeyReusedEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    DefinitionsController_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["DefinitionDto"][];
                    };
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope definitions:read`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    DefinitionsController_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable ASCII characters (a UUID v4 is a good choice), bare or as a quoted string (`"…"`, IETF draft-ietf-httpapi-idempotency-key-header), sent once. The same key with the same request (method, path and query, canonical JSON body) within IDEMPOTENCY_KEY_TTL_MS (24 h) answers the first answer again with `Idempotency-Replayed: true` and changes nothing; with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, the request waits for its answer (IDEMPOTENCY_WAIT_MS), then 409. Keys are per workspace (per client address without an API key). Stored and replayed: 2xx and the 4xx answers other than 400, 401, 403, 413, 415, 422 and 429; never 5xx, nor an answer that sets a cookie. README "Idempotent requests". */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateDefinitionDto"];
            };
        };
        responses: {
            201: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["DefinitionDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope definitions:write`); or a change through the console session cookie whose Origin is not this service: cross-site request refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description CONFLICT: duplicate, not allowed in the current state, or a workspace count limit reached; or a request with this Idempotency-Key is still in progress */
            409: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConflictEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: body over 1 MiB, or a value over its storage limit (details.limit names it) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PayloadTooLargeEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: a body whose Content-Type is not application/json (UTF-8) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnsupportedMediaTypeEnvelope"];
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was first used for another request (method, path, body, or API key when the answer holds a secret) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyKeyReusedEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    DefinitionsController_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["DefinitionDto"];
                    };
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope definitions:read`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    RunsController_list: {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
                status?: "PENDING" | "RUNNING" | "WAITING" | "PAUSED" | "COMPLETED" | "FAILED" | "CANCELLED";
                definitionId?: string;
                /** @description Only runs started by this schedule */
                scheduleId?: string;
                /** @description Only the child runs started by this run's workflow steps */
                parentRunId?: string;
                /** @description Only runs created at or after this time (ISO 8601 date, midnight UTC, or timestamp with a zone) */
                createdFrom?: string;
                /** @description Only runs created before this time (exclusive); must be after createdFrom */
                createdTo?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of results */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["RunDto"][];
                        meta: components["schemas"]["PageMeta"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope runs:read`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    RunsController_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description W3C Trace Context of the caller. Stored with the run; the spans of its steps link to it (README "Tracing"). A malformed value is ignored. */
                traceparent?: string;
                /** @description 1-255 printable ASCII characters (a UUID v4 is a good choice), bare or as a quoted string (`"…"`, IETF draft-ietf-httpapi-idempotency-key-header), sent once. The same key with the same request (method, path and query, canonical JSON body) within IDEMPOTENCY_KEY_TTL_MS (24 h) answers the first answer again with `Idempotency-Replayed: true` and changes nothing; with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, the request waits for its answer (IDEMPOTENCY_WAIT_MS), then 409. Keys are per workspace (per client address without an API key). Stored and replayed: 2xx and the 4xx answers other than 400, 401, 403, 413, 415, 422 and 429; never 5xx, nor an answer that sets a cookie. README "Idempotent requests". */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateRunDto"];
            };
        };
        responses: {
            200: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["RunDto"];
                    };
                };
            };
            201: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["RunDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope runs:write`); or a change through the console session cookie whose Origin is not this service: cross-site request refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description CONFLICT: a request with this Idempotency-Key is still in progress */
            409: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConflictEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: body over 1 MiB, or a value over its storage limit (details.limit names it) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PayloadTooLargeEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: a body whose Content-Type is not application/json (UTF-8) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnsupportedMediaTypeEnvelope"];
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was first used for another request (method, path, body, or API key when the answer holds a secret) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyKeyReusedEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    RunsController_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["RunDetailDto"];
                    };
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope runs:read`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    RunsController_cancel: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable ASCII characters (a UUID v4 is a good choice), bare or as a quoted string (`"…"`, IETF draft-ietf-httpapi-idempotency-key-header), sent once. The same key with the same request (method, path and query, canonical JSON body) within IDEMPOTENCY_KEY_TTL_MS (24 h) answers the first answer again with `Idempotency-Replayed: true` and changes nothing; with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, the request waits for its answer (IDEMPOTENCY_WAIT_MS), then 409. Keys are per workspace (per client address without an API key). Stored and replayed: 2xx and the 4xx answers other than 400, 401, 403, 413, 415, 422 and 429; never 5xx, nor an answer that sets a cookie. README "Idempotent requests". */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["RunTransitionDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: a malformed Idempotency-Key header (details.errors names it) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope runs:write`); or a change through the console session cookie whose Origin is not this service: cross-site request refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description CONFLICT: duplicate, not allowed in the current state, or a workspace count limit reached; or a request with this Idempotency-Key is still in progress */
            409: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConflictEnvelope"];
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was first used for another request (method, path, body, or API key when the answer holds a secret) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyKeyReusedEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    RunsController_resume: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable ASCII characters (a UUID v4 is a good choice), bare or as a quoted string (`"…"`, IETF draft-ietf-httpapi-idempotency-key-header), sent once. The same key with the same request (method, path and query, canonical JSON body) within IDEMPOTENCY_KEY_TTL_MS (24 h) answers the first answer again with `Idempotency-Replayed: true` and changes nothing; with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, the request waits for its answer (IDEMPOTENCY_WAIT_MS), then 409. Keys are per workspace (per client address without an API key). Stored and replayed: 2xx and the 4xx answers other than 400, 401, 403, 413, 415, 422 and 429; never 5xx, nor an answer that sets a cookie. README "Idempotent requests". */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ResumeRunDto"];
            };
        };
        responses: {
            200: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["RunTransitionDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope runs:write`); or a change through the console session cookie whose Origin is not this service: cross-site request refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description CONFLICT: duplicate, not allowed in the current state, or a workspace count limit reached; or a request with this Idempotency-Key is still in progress */
            409: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConflictEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: body over 1 MiB, or a value over its storage limit (details.limit names it) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PayloadTooLargeEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: a body whose Content-Type is not application/json (UTF-8) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnsupportedMediaTypeEnvelope"];
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was first used for another request (method, path, body, or API key when the answer holds a secret) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyKeyReusedEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    RunsController_signal: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable ASCII characters (a UUID v4 is a good choice), bare or as a quoted string (`"…"`, IETF draft-ietf-httpapi-idempotency-key-header), sent once. The same key with the same request (method, path and query, canonical JSON body) within IDEMPOTENCY_KEY_TTL_MS (24 h) answers the first answer again with `Idempotency-Replayed: true` and changes nothing; with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, the request waits for its answer (IDEMPOTENCY_WAIT_MS), then 409. Keys are per workspace (per client address without an API key). Stored and replayed: 2xx and the 4xx answers other than 400, 401, 403, 413, 415, 422 and 429; never 5xx, nor an answer that sets a cookie. README "Idempotent requests". */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SendSignalDto"];
            };
        };
        responses: {
            202: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["SignalDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope runs:write`); or a change through the console session cookie whose Origin is not this service: cross-site request refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description CONFLICT: duplicate, not allowed in the current state, or a workspace count limit reached; or a request with this Idempotency-Key is still in progress */
            409: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConflictEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: body over 1 MiB, or a value over its storage limit (details.limit names it) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PayloadTooLargeEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: a body whose Content-Type is not application/json (UTF-8) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnsupportedMediaTypeEnvelope"];
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was first used for another request (method, path, body, or API key when the answer holds a secret) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyKeyReusedEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    RunsController_retry: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable ASCII characters (a UUID v4 is a good choice), bare or as a quoted string (`"…"`, IETF draft-ietf-httpapi-idempotency-key-header), sent once. The same key with the same request (method, path and query, canonical JSON body) within IDEMPOTENCY_KEY_TTL_MS (24 h) answers the first answer again with `Idempotency-Replayed: true` and changes nothing; with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, the request waits for its answer (IDEMPOTENCY_WAIT_MS), then 409. Keys are per workspace (per client address without an API key). Stored and replayed: 2xx and the 4xx answers other than 400, 401, 403, 413, 415, 422 and 429; never 5xx, nor an answer that sets a cookie. README "Idempotent requests". */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["RunTransitionDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: a malformed Idempotency-Key header (details.errors names it) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope runs:write`); or a change through the console session cookie whose Origin is not this service: cross-site request refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description CONFLICT: duplicate, not allowed in the current state, or a workspace count limit reached; or a request with this Idempotency-Key is still in progress */
            409: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConflictEnvelope"];
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was first used for another request (method, path, body, or API key when the answer holds a secret) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyKeyReusedEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    RunsController_events: {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of results */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["RunEventDto"][];
                        meta: components["schemas"]["PageMeta"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope runs:read`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    RunsController_stream: {
        parameters: {
            query?: {
                /** @description Resume after this event id, for clients that cannot set the Last-Event-ID header; the header wins when both are given (EventSource sends it on every reconnection). */
                lastEventId?: string;
            };
            header?: {
                /** @description Resume after this event id (the `id:` of the last message received); no gap, no repeat. */
                "Last-Event-ID"?: string;
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Server-Sent Events. First `retry: 3000` (EventSource waits that long before it reconnects), then one message per run event, oldest first: `id: <seq>` (the event's position in the order, to send back as Last-Event-ID), `event: <eventType>` and `data: <the event as GET /v1/workflow-runs/:id/events lists it, JSON on one line>`, each followed by a blank line. Comments `: keep-alive` every SSE_HEARTBEAT_MS. The server ends the stream after the run's terminal event (WORKFLOW_COMPLETED, WORKFLOW_FAILED or WORKFLOW_CANCELLED) when nothing follows it, and drops a client that leaves more than SSE_MAX_BUFFERED_BYTES unread. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description The run is over (COMPLETED, FAILED or CANCELLED) and has no event after the given id: nothing to stream (EventSource stops reconnecting on a 204). */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope runs:read`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    RunsController_steps: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["StepRunDto"][];
                    };
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope runs:read`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    SchedulesController_list: {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
                /** @description Only the schedules of this definition */
                definitionId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of results */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["ScheduleDto"][];
                        meta: components["schemas"]["PageMeta"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope schedules:read`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    SchedulesController_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable ASCII characters (a UUID v4 is a good choice), bare or as a quoted string (`"…"`, IETF draft-ietf-httpapi-idempotency-key-header), sent once. The same key with the same request (method, path and query, canonical JSON body) within IDEMPOTENCY_KEY_TTL_MS (24 h) answers the first answer again with `Idempotency-Replayed: true` and changes nothing; with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, the request waits for its answer (IDEMPOTENCY_WAIT_MS), then 409. Keys are per workspace (per client address without an API key). Stored and replayed: 2xx and the 4xx answers other than 400, 401, 403, 413, 415, 422 and 429; never 5xx, nor an answer that sets a cookie. README "Idempotent requests". */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateScheduleDto"];
            };
        };
        responses: {
            201: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["ScheduleDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope schedules:write`); or a change through the console session cookie whose Origin is not this service: cross-site request refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description CONFLICT: duplicate, not allowed in the current state, or a workspace count limit reached; or a request with this Idempotency-Key is still in progress */
            409: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConflictEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: body over 1 MiB, or a value over its storage limit (details.limit names it) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PayloadTooLargeEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: a body whose Content-Type is not application/json (UTF-8) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnsupportedMediaTypeEnvelope"];
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was first used for another request (method, path, body, or API key when the answer holds a secret) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyKeyReusedEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    SchedulesController_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["ScheduleDto"];
                    };
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope schedules:read`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    SchedulesController_delete: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable ASCII characters (a UUID v4 is a good choice), bare or as a quoted string (`"…"`, IETF draft-ietf-httpapi-idempotency-key-header), sent once. The same key with the same request (method, path and query, canonical JSON body) within IDEMPOTENCY_KEY_TTL_MS (24 h) answers the first answer again with `Idempotency-Replayed: true` and changes nothing; with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, the request waits for its answer (IDEMPOTENCY_WAIT_MS), then 409. Keys are per workspace (per client address without an API key). Stored and replayed: 2xx and the 4xx answers other than 400, 401, 403, 413, 415, 422 and 429; never 5xx, nor an answer that sets a cookie. README "Idempotent requests". */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["DeletedScheduleDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: a malformed Idempotency-Key header (details.errors names it) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope schedules:write`); or a change through the console session cookie whose Origin is not this service: cross-site request refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description CONFLICT: a request with this Idempotency-Key is still in progress */
            409: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConflictEnvelope"];
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was first used for another request (method, path, body, or API key when the answer holds a secret) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyKeyReusedEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    SchedulesController_update: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable ASCII characters (a UUID v4 is a good choice), bare or as a quoted string (`"…"`, IETF draft-ietf-httpapi-idempotency-key-header), sent once. The same key with the same request (method, path and query, canonical JSON body) within IDEMPOTENCY_KEY_TTL_MS (24 h) answers the first answer again with `Idempotency-Replayed: true` and changes nothing; with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, the request waits for its answer (IDEMPOTENCY_WAIT_MS), then 409. Keys are per workspace (per client address without an API key). Stored and replayed: 2xx and the 4xx answers other than 400, 401, 403, 413, 415, 422 and 429; never 5xx, nor an answer that sets a cookie. README "Idempotent requests". */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateScheduleDto"];
            };
        };
        responses: {
            200: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["ScheduleDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope schedules:write`); or a change through the console session cookie whose Origin is not this service: cross-site request refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description CONFLICT: a request with this Idempotency-Key is still in progress */
            409: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConflictEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: body over 1 MiB, or a value over its storage limit (details.limit names it) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PayloadTooLargeEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: a body whose Content-Type is not application/json (UTF-8) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnsupportedMediaTypeEnvelope"];
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was first used for another request (method, path, body, or API key when the answer holds a secret) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyKeyReusedEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    SchedulesController_trigger: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable ASCII characters (a UUID v4 is a good choice), bare or as a quoted string (`"…"`, IETF draft-ietf-httpapi-idempotency-key-header), sent once. The same key with the same request (method, path and query, canonical JSON body) within IDEMPOTENCY_KEY_TTL_MS (24 h) answers the first answer again with `Idempotency-Replayed: true` and changes nothing; with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, the request waits for its answer (IDEMPOTENCY_WAIT_MS), then 409. Keys are per workspace (per client address without an API key). Stored and replayed: 2xx and the 4xx answers other than 400, 401, 403, 413, 415, 422 and 429; never 5xx, nor an answer that sets a cookie. README "Idempotent requests". */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            201: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["RunDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: a malformed Idempotency-Key header (details.errors names it) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope schedules:write`); or a change through the console session cookie whose Origin is not this service: cross-site request refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description CONFLICT: a request with this Idempotency-Key is still in progress */
            409: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConflictEnvelope"];
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was first used for another request (method, path, body, or API key when the answer holds a secret) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyKeyReusedEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    ApprovalsController_list: {
        parameters: {
            query?: {
                /** @description `true`: undecided requests only; `false`: decided ones only; omitted: all */
                pending?: "true" | "false";
                /** @description Continue after this request: only requests older than it (the `Link: rel="next"` header of an answer that was cut at APPROVAL_LIST_MAX_ITEMS names it) */
                before?: string;
                /** @description `newest` first (continued with `before`), or `oldest` first (continued with `after`): the order of an inbox that is worked through from the longest-waiting request */
                order?: "newest" | "oldest";
                /** @description With order=oldest: continue after this request, only newer ones (the `Link: rel="next"` header of an answer that was cut names it) */
                after?: string;
                /** @description Only the requests for this assignee (a name or group of the approval step's `assignees`, exactly as written; after an escalation, of its `escalateTo.assignees`). Combines with the other filters, both orders and their cursors. */
                assignee?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    /** @description Present when the answer was cut: `<...?before=<last id>>; rel="next"` (order=oldest: `<...?order=oldest&after=<last id>>; rel="next"`) */
                    Link?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["ApprovalRequestDto"][];
                    };
                };
            };
            /** @description VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope approvals:read`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    ApprovalsController_count: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["ApprovalCountDto"];
                    };
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope approvals:read`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    ApprovalsController_get: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["ApprovalRequestDto"];
                    };
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope approvals:read`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    ApprovalsController_decide: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable ASCII characters (a UUID v4 is a good choice), bare or as a quoted string (`"…"`, IETF draft-ietf-httpapi-idempotency-key-header), sent once. The same key with the same request (method, path and query, canonical JSON body) within IDEMPOTENCY_KEY_TTL_MS (24 h) answers the first answer again with `Idempotency-Replayed: true` and changes nothing; with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, the request waits for its answer (IDEMPOTENCY_WAIT_MS), then 409. Keys are per workspace (per client address without an API key). Stored and replayed: 2xx and the 4xx answers other than 400, 401, 403, 413, 415, 422 and 429; never 5xx, nor an answer that sets a cookie. README "Idempotent requests". */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DecideApprovalDto"];
            };
        };
        responses: {
            200: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["ApprovalDecisionDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope approvals:decide`); or a change through the console session cookie whose Origin is not this service: cross-site request refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description CONFLICT: duplicate, not allowed in the current state, or a workspace count limit reached; or a request with this Idempotency-Key is still in progress */
            409: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConflictEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: body over 1 MiB, or a value over its storage limit (details.limit names it) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PayloadTooLargeEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: a body whose Content-Type is not application/json (UTF-8) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnsupportedMediaTypeEnvelope"];
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was first used for another request (method, path, body, or API key when the answer holds a secret) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyKeyReusedEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    CostsController_runCost: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["RunCostDto"];
                    };
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope costs:read`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    CostsController_summary: {
        parameters: {
            query?: {
                /** @description Start of the window (inclusive); default 1970-01-01T00:00:00.000Z */
                from?: string;
                /** @description End of the window (inclusive); default the time of the request */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["CostSummaryDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope costs:read`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    CostsController_series: {
        parameters: {
            query?: {
                /** @description Start of the window (inclusive); default 30 days before `to` */
                from?: string;
                /** @description End of the window (inclusive, like the summary); default the time of the request */
                to?: string;
                /** @description Length of a bucket; buckets start at whole UTC days or hours */
                bucket?: "day" | "hour";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["CostSeriesDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope costs:read`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    CostsController_byDefinition: {
        parameters: {
            query?: {
                /** @description Start of the window (inclusive); default 1970-01-01T00:00:00.000Z */
                from?: string;
                /** @description End of the window (inclusive); default the time of the request */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["CostByDefinitionDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope costs:read`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    BudgetsController_get: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["BudgetDto"];
                    };
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope costs:read`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    BudgetsController_put: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PutBudgetDto"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["BudgetDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope keys:write`); or a change through the console session cookie whose Origin is not this service: cross-site request refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: body over 1 MiB, or a value over its storage limit (details.limit names it) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PayloadTooLargeEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: a body whose Content-Type is not application/json (UTF-8) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnsupportedMediaTypeEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    WebhooksController_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["WebhookDto"][];
                    };
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope webhooks:read`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    WebhooksController_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable ASCII characters (a UUID v4 is a good choice), bare or as a quoted string (`"…"`, IETF draft-ietf-httpapi-idempotency-key-header), sent once. The same key with the same request (method, path and query, canonical JSON body) within IDEMPOTENCY_KEY_TTL_MS (24 h) answers the first answer again with `Idempotency-Replayed: true` and changes nothing; with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, the request waits for its answer (IDEMPOTENCY_WAIT_MS), then 409. Keys are per workspace (per client address without an API key). Stored and replayed: 2xx and the 4xx answers other than 400, 401, 403, 413, 415, 422 and 429; never 5xx, nor an answer that sets a cookie. README "Idempotent requests". */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateWebhookDto"];
            };
        };
        responses: {
            /** @description With an Idempotency-Key, this answer (it holds the secret) is stored encrypted with ENCRYPTION_KEY and replayed in full, to the same API key only; without ENCRYPTION_KEY not stored, and a repeated Idempotency-Key is answered 409 naming the webhook. */
            201: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["CreatedWebhookDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope webhooks:write`); or a change through the console session cookie whose Origin is not this service: cross-site request refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description CONFLICT: a request with this Idempotency-Key is still in progress; or a repeated Idempotency-Key whose first answer (the webhook with its secret) is not stored */
            409: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConflictEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: body over 1 MiB, or a value over its storage limit (details.limit names it) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PayloadTooLargeEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: a body whose Content-Type is not application/json (UTF-8) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnsupportedMediaTypeEnvelope"];
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was first used for another request (method, path, body, or API key when the answer holds a secret) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyKeyReusedEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    WebhooksController_delete: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable ASCII characters (a UUID v4 is a good choice), bare or as a quoted string (`"…"`, IETF draft-ietf-httpapi-idempotency-key-header), sent once. The same key with the same request (method, path and query, canonical JSON body) within IDEMPOTENCY_KEY_TTL_MS (24 h) answers the first answer again with `Idempotency-Replayed: true` and changes nothing; with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, the request waits for its answer (IDEMPOTENCY_WAIT_MS), then 409. Keys are per workspace (per client address without an API key). Stored and replayed: 2xx and the 4xx answers other than 400, 401, 403, 413, 415, 422 and 429; never 5xx, nor an answer that sets a cookie. README "Idempotent requests". */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["DeletedWebhookDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: a malformed Idempotency-Key header (details.errors names it) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope webhooks:write`); or a change through the console session cookie whose Origin is not this service: cross-site request refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description CONFLICT: a request with this Idempotency-Key is still in progress */
            409: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConflictEnvelope"];
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was first used for another request (method, path, body, or API key when the answer holds a secret) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyKeyReusedEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    WebhooksController_deliveries: {
        parameters: {
            query?: {
                page?: number;
                pageSize?: number;
                /** @description Only deliveries in this status */
                status?: "pending" | "delivered" | "failed";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of results */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["WebhookDeliveryDto"][];
                        meta: components["schemas"]["PageMeta"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope webhooks:read`) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    WebhooksController_retry: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable ASCII characters (a UUID v4 is a good choice), bare or as a quoted string (`"…"`, IETF draft-ietf-httpapi-idempotency-key-header), sent once. The same key with the same request (method, path and query, canonical JSON body) within IDEMPOTENCY_KEY_TTL_MS (24 h) answers the first answer again with `Idempotency-Replayed: true` and changes nothing; with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, the request waits for its answer (IDEMPOTENCY_WAIT_MS), then 409. Keys are per workspace (per client address without an API key). Stored and replayed: 2xx and the 4xx answers other than 400, 401, 403, 413, 415, 422 and 429; never 5xx, nor an answer that sets a cookie. README "Idempotent requests". */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
                deliveryId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["WebhookDeliveryDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: a malformed Idempotency-Key header (details.errors names it) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: the API key lacks the scope (`API key lacks scope webhooks:write`); or a change through the console session cookie whose Origin is not this service: cross-site request refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description NOT_FOUND: absent or in another workspace */
            404: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotFoundEnvelope"];
                };
            };
            /** @description CONFLICT: duplicate, not allowed in the current state, or a workspace count limit reached; or a request with this Idempotency-Key is still in progress */
            409: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConflictEnvelope"];
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was first used for another request (method, path, body, or API key when the answer holds a secret) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyKeyReusedEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    SessionsController_current: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["SessionDto"];
                    };
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    SessionsController_signIn: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable ASCII characters (a UUID v4 is a good choice), bare or as a quoted string (`"…"`, IETF draft-ietf-httpapi-idempotency-key-header), sent once. The same key with the same request (method, path and query, canonical JSON body) within IDEMPOTENCY_KEY_TTL_MS (24 h) answers the first answer again with `Idempotency-Replayed: true` and changes nothing; with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, the request waits for its answer (IDEMPOTENCY_WAIT_MS), then 409. Keys are per workspace (per client address without an API key). Stored and replayed: 2xx and the 4xx answers other than 400, 401, 403, 413, 415, 422 and 429; never 5xx, nor an answer that sets a cookie. README "Idempotent requests". */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SignInDto"];
            };
        };
        responses: {
            201: {
                headers: {
                    /** @description `orchestrator_session=<value>; Path=/; HttpOnly; SameSite=Strict; Max-Age=<seconds>`, plus `Secure` when the request came over HTTPS (behind proxies trusted by TRUST_PROXY: X-Forwarded-Proto) */
                    "Set-Cookie"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["SessionDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: invalid body or query, malformed JSON (details.errors names each field) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description AUTH_ERROR: missing, invalid or revoked credentials */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthErrorEnvelope"];
                };
            };
            /** @description FORBIDDEN: a change through the console session cookie (or a console sign-in) whose Origin is not this service: cross-site request refused */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ForbiddenEnvelope"];
                };
            };
            /** @description CONFLICT: a request with this Idempotency-Key is still in progress */
            409: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConflictEnvelope"];
                };
            };
            /** @description PAYLOAD_TOO_LARGE: body over 1 MiB, or a value over its storage limit (details.limit names it) */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PayloadTooLargeEnvelope"];
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE: a body whose Content-Type is not application/json (UTF-8) */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnsupportedMediaTypeEnvelope"];
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was first used for another request (method, path, body, or API key when the answer holds a secret) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyKeyReusedEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
    SessionsController_signOut: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1-255 printable ASCII characters (a UUID v4 is a good choice), bare or as a quoted string (`"…"`, IETF draft-ietf-httpapi-idempotency-key-header), sent once. The same key with the same request (method, path and query, canonical JSON body) within IDEMPOTENCY_KEY_TTL_MS (24 h) answers the first answer again with `Idempotency-Replayed: true` and changes nothing; with another request, 422 IDEMPOTENCY_KEY_REUSED; while the first is still running, the request waits for its answer (IDEMPOTENCY_WAIT_MS), then 409. Keys are per workspace (per client address without an API key). Stored and replayed: 2xx and the 4xx answers other than 400, 401, 403, 413, 415, 422 and 429; never 5xx, nor an answer that sets a cookie. README "Idempotent requests". */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    /** @description `orchestrator_session=<value>; Path=/; HttpOnly; SameSite=Strict; Max-Age=<seconds>`, plus `Secure` when the request came over HTTPS (behind proxies trusted by TRUST_PROXY: X-Forwarded-Proto) */
                    "Set-Cookie"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        success: true;
                        data: components["schemas"]["SignedOutDto"];
                    };
                };
            };
            /** @description VALIDATION_ERROR: a malformed Idempotency-Key header (details.errors names it) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ValidationErrorEnvelope"];
                };
            };
            /** @description CONFLICT: a request with this Idempotency-Key is still in progress */
            409: {
                headers: {
                    /** @description `true` on an answer replayed for a repeated Idempotency-Key (absent on a first answer) */
                    "Idempotency-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConflictEnvelope"];
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was first used for another request (method, path, body, or API key when the answer holds a secret) */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdempotencyKeyReusedEnvelope"];
                };
            };
            /** @description RATE_LIMIT_ERROR: too many requests; retry after Retry-After seconds */
            429: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RateLimitErrorEnvelope"];
                };
            };
            /** @description INTERNAL_ERROR: unexpected server error (the log has it, with the X-Request-Id) */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InternalErrorEnvelope"];
                };
            };
            /** @description SERVICE_UNAVAILABLE: the database cannot be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    /** @description Seconds to wait before retrying */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ServiceUnavailableEnvelope"];
                };
            };
        };
    };
}
