import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Real HTTP servers on 127.0.0.1 that speak the OpenAI Chat Completions protocol
 * (`POST /v1/chat/completions`) and the Anthropic Messages protocol (`POST /v1/messages`), answer
 * from a per-model script and record every request they get. Any other path is recorded and answered
 * `200 {"ok": true}` (a stand-in for the endpoint a workflow publishes to).
 */

interface Timing {
  /** Answer after this many milliseconds (an answer slower than a timeout). */
  delayMs?: number;
  /** Answer once this settles (a call held in flight until the test lets it go). */
  until?: Promise<unknown>;
}

export type ScriptedAnswer =
  | (Timing & { text: string; inputTokens?: number; outputTokens?: number })
  | (Timing & {
      toolCalls: Array<{ name: string; arguments: Record<string, unknown> }>;
      inputTokens?: number;
      outputTokens?: number;
    })
  /** An error answer: the provider's error JSON with `error` as its message, or `rawBody` as is. */
  | (Timing & { status: number; error?: string; rawBody?: string });

export interface RecordedMessage {
  role: string;
  content: string | Array<Record<string, unknown>> | null;
  [key: string]: unknown;
}

/** A request body as JSON; the fields the tests look at are typed. */
export interface RecordedBody {
  model?: string;
  messages?: RecordedMessage[];
  [key: string]: unknown;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: RecordedBody;
  /** The model the request asked for ('' for non-LLM paths). */
  model: string;
}

export interface FakeLlmServer {
  /** What OPENAI_BASE_URL / ANTHROPIC_BASE_URL should be set to. */
  baseUrl: string;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  requests: RecordedRequest[];
  /**
   * Queues answers for a model (the id the provider receives, without `provider:`). They are used in
   * order; the last one keeps answering once the others are used up.
   */
  script(model: string, ...answers: ScriptedAnswer[]): void;
  /** LLM requests that asked for `model`, oldest first. */
  requestsFor(model: string): RecordedRequest[];
  /** Requests to a non-LLM path. */
  requestsTo(path: string): RecordedRequest[];
  close(): Promise<void>;
}

type Protocol = 'openai' | 'anthropic';

const LLM_PATH: Record<Protocol, string> = {
  openai: '/v1/chat/completions',
  anthropic: '/v1/messages',
};

let counter = 0;
const nextId = (prefix: string) => `${prefix}_${++counter}`;

/** A raw body is sent as it is (a proxy's HTML page, a truncated answer...). */
class RawBody {
  constructor(readonly text: string) {}
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(body instanceof RawBody ? body.text : JSON.stringify(body));
}

function openAiAnswer(model: string, answer: ScriptedAnswer): { status: number; body: unknown } {
  if ('status' in answer) {
    if (answer.rawBody !== undefined)
      return { status: answer.status, body: new RawBody(answer.rawBody) };
    return {
      status: answer.status,
      body: { error: { message: answer.error ?? 'scripted failure', type: 'server_error' } },
    };
  }
  const usage = {
    prompt_tokens: answer.inputTokens ?? 10,
    completion_tokens: answer.outputTokens ?? 5,
    total_tokens: (answer.inputTokens ?? 10) + (answer.outputTokens ?? 5),
  };
  const message =
    'toolCalls' in answer
      ? {
          role: 'assistant',
          content: null,
          tool_calls: answer.toolCalls.map((c) => ({
            id: nextId('call'),
            type: 'function',
            function: { name: c.name, arguments: JSON.stringify(c.arguments) },
          })),
        }
      : { role: 'assistant', content: answer.text };
  return {
    status: 200,
    body: {
      id: nextId('chatcmpl'),
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message,
          finish_reason: 'toolCalls' in answer ? 'tool_calls' : 'stop',
        },
      ],
      usage,
    },
  };
}

function anthropicAnswer(model: string, answer: ScriptedAnswer): { status: number; body: unknown } {
  if ('status' in answer) {
    if (answer.rawBody !== undefined)
      return { status: answer.status, body: new RawBody(answer.rawBody) };
    return {
      status: answer.status,
      body: {
        type: 'error',
        error: { type: 'api_error', message: answer.error ?? 'scripted failure' },
      },
    };
  }
  const content =
    'toolCalls' in answer
      ? answer.toolCalls.map((c) => ({
          type: 'tool_use',
          id: nextId('toolu'),
          name: c.name,
          input: c.arguments,
        }))
      : [{ type: 'text', text: answer.text }];
  return {
    status: 200,
    body: {
      id: nextId('msg'),
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason: 'toolCalls' in answer ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: answer.inputTokens ?? 10, output_tokens: answer.outputTokens ?? 5 },
    },
  };
}

async function startFake(protocol: Protocol): Promise<FakeLlmServer> {
  const scripts = new Map<string, ScriptedAnswer[]>();
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: RecordedBody;
      try {
        body = raw ? (JSON.parse(raw) as RecordedBody) : {};
      } catch {
        body = { raw };
      }
      const path = (req.url ?? '/').split('?')[0];
      const isLlm = req.method === 'POST' && path === LLM_PATH[protocol];
      const model = isLlm && typeof body.model === 'string' ? body.model : '';
      requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body, model });
      if (!isLlm) return send(res, 200, { ok: true });
      const queue = scripts.get(model);
      if (!queue || queue.length === 0) {
        return send(res, 404, { error: { message: `model ${model} is not scripted` } });
      }
      const answer = queue.length > 1 ? queue.shift()! : queue[0];
      const { status, body: payload } =
        protocol === 'openai' ? openAiAnswer(model, answer) : anthropicAnswer(model, answer);
      if (answer.until) {
        const answerNow = () => send(res, status, payload);
        answer.until.then(answerNow, answerNow);
      } else if (answer.delayMs) {
        const timer = setTimeout(() => send(res, status, payload), answer.delayMs);
        // The client gave up (its timeout): nothing to answer.
        res.on('close', () => clearTimeout(timer));
      } else {
        send(res, status, payload);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    baseUrl: protocol === 'openai' ? `${origin}/v1` : origin,
    origin,
    requests,
    script(model, ...answers) {
      scripts.set(model, [...answers]);
    },
    requestsFor: (model) => requests.filter((r) => r.model === model),
    requestsTo: (path) => requests.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A Chat Completions server: set OPENAI_BASE_URL to its `baseUrl`. */
export function startFakeOpenAi(): Promise<FakeLlmServer> {
  return startFake('openai');
}

/** An Anthropic Messages server: set ANTHROPIC_BASE_URL to its `baseUrl`. */
export function startFakeAnthropic(): Promise<FakeLlmServer> {
  return startFake('anthropic');
}

/** The environment that points the service at both fake servers. */
export function fakeLlmEnv(
  openai: FakeLlmServer,
  anthropic: FakeLlmServer,
): Record<string, string> {
  return {
    OPENAI_BASE_URL: openai.baseUrl,
    OPENAI_API_KEY: 'sk-test-openai',
    ANTHROPIC_BASE_URL: anthropic.baseUrl,
    ANTHROPIC_API_KEY: 'sk-ant-test',
  };
}
