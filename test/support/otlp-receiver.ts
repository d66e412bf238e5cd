import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

/**
 * The messages of `opentelemetry/proto/collector/trace/v1/trace_service.proto` (and the trace, resource
 * and common protos it uses) that a trace export carries, with the OTLP field numbers. Fields the
 * tests do not read (events, dropped counts, schema URLs) are left out: protobuf skips them.
 */
const OTLP_TRACE_PROTO = {
  nested: {
    ExportTraceServiceRequest: {
      fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } },
    },
    ResourceSpans: {
      fields: {
        resource: { type: 'Resource', id: 1 },
        scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 },
      },
    },
    Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
    ScopeSpans: {
      fields: {
        scope: { type: 'InstrumentationScope', id: 1 },
        spans: { rule: 'repeated', type: 'Span', id: 2 },
      },
    },
    InstrumentationScope: { fields: { name: { type: 'string', id: 1 } } },
    Span: {
      fields: {
        traceId: { type: 'bytes', id: 1 },
        spanId: { type: 'bytes', id: 2 },
        parentSpanId: { type: 'bytes', id: 4 },
        flags: { type: 'fixed32', id: 16 },
        name: { type: 'string', id: 5 },
        kind: { type: 'int32', id: 6 },
        attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
        links: { rule: 'repeated', type: 'Link', id: 13 },
        status: { type: 'Status', id: 15 },
      },
    },
    Link: {
      fields: {
        traceId: { type: 'bytes', id: 1 },
        spanId: { type: 'bytes', id: 2 },
        attributes: { rule: 'repeated', type: 'KeyValue', id: 4 },
      },
    },
    Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
    KeyValue: { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } },
    AnyValue: {
      oneofs: {
        value: {
          oneof: [
            'stringValue',
            'boolValue',
            'intValue',
            'doubleValue',
            'arrayValue',
            'bytesValue',
          ],
        },
      },
      fields: {
        stringValue: { type: 'string', id: 1 },
        boolValue: { type: 'bool', id: 2 },
        intValue: { type: 'int64', id: 3 },
        doubleValue: { type: 'double', id: 4 },
        arrayValue: { type: 'ArrayValue', id: 5 },
        bytesValue: { type: 'bytes', id: 7 },
      },
    },
    ArrayValue: { fields: { values: { rule: 'repeated', type: 'AnyValue', id: 1 } } },
  },
};

const ExportTraceServiceRequest = protobuf.Root.fromJSON(OTLP_TRACE_PROTO).lookupType(
  'ExportTraceServiceRequest',
);

/** OTLP SpanKind. */
export const SPAN_KIND = { INTERNAL: 1, SERVER: 2, CLIENT: 3, PRODUCER: 4, CONSUMER: 5 } as const;
/** OTLP Status.code. */
export const STATUS_CODE = { UNSET: 0, OK: 1, ERROR: 2 } as const;

type AttributeValue = string | number | boolean | null;

/** One received span, ids as lowercase hex ('' for no parent). */
export interface ReceivedSpan {
  service: string;
  scope: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, AttributeValue>;
  links: Array<{ traceId: string; spanId: string }>;
  status: { code: number; message: string };
}

interface DecodedValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
}
interface DecodedKeyValue {
  key: string;
  value?: DecodedValue;
}
interface DecodedSpan {
  traceId?: string;
  spanId?: string;
  parentSpanId?: string;
  name?: string;
  kind?: number;
  attributes?: DecodedKeyValue[];
  links?: Array<{ traceId?: string; spanId?: string }>;
  status?: { code?: number; message?: string };
}
interface DecodedRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: DecodedKeyValue[] };
    scopeSpans?: Array<{ scope?: { name?: string }; spans?: DecodedSpan[] }>;
  }>;
}

function value(v: DecodedValue | undefined): AttributeValue {
  if (!v) return null;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  return null;
}

function attributes(kvs: DecodedKeyValue[] | undefined): Record<string, AttributeValue> {
  return Object.fromEntries((kvs ?? []).map((kv) => [kv.key, value(kv.value)]));
}

/**
 * The spans of an export, flat. `id` turns a trace or span id as decoded into hex: the JSON encoding's
 * ids are hex already, the protobuf ones are bytes (base64 once decoded).
 */
function flatten(request: DecodedRequest, id: (raw: string | undefined) => string): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of request.resourceSpans ?? []) {
    const service = String(attributes(rs.resource?.attributes)['service.name'] ?? '');
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        spans.push({
          service,
          scope: ss.scope?.name ?? '',
          traceId: id(s.traceId),
          spanId: id(s.spanId),
          parentSpanId: id(s.parentSpanId),
          name: s.name ?? '',
          kind: s.kind ?? 0,
          attributes: attributes(s.attributes),
          links: (s.links ?? []).map((l) => ({ traceId: id(l.traceId), spanId: id(l.spanId) })),
          status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
        });
      }
    }
  }
  return spans;
}

function decodeProtobuf(body: Buffer): DecodedRequest {
  const message = ExportTraceServiceRequest.decode(body);
  const decoded: DecodedRequest = ExportTraceServiceRequest.toObject(message, {
    bytes: String,
    longs: String,
  });
  return decoded;
}

/**
 * An OTLP/HTTP trace receiver on 127.0.0.1 (what an OpenTelemetry Collector's `otlp` receiver answers
 * on `/v1/traces`): decodes `application/x-protobuf` and `application/json` exports, answers 200 with
 * an empty ExportTraceServiceResponse, and keeps every span and the headers of every export.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly exports: Array<{ path: string; contentType: string; headers: IncomingHttpHeaders }> = [];
  private server?: Server;
  port = 0;

  /** The value for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends /v1/traces). */
  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const contentType = String(req.headers['content-type'] ?? '');
        this.exports.push({ path: req.url ?? '', contentType, headers: req.headers });
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          res.writeHead(404).end();
          return;
        }
        const body = Buffer.concat(chunks);
        try {
          const json = contentType.startsWith('application/json');
          const decoded = json
            ? (JSON.parse(body.toString('utf8')) as DecodedRequest)
            : decodeProtobuf(body);
          this.spans.push(
            ...flatten(decoded, (raw) =>
              json ? (raw ?? '') : Buffer.from(raw ?? '', 'base64').toString('hex'),
            ),
          );
          res.writeHead(200, {
            'content-type': json ? 'application/json' : 'application/x-protobuf',
          });
          res.end(json ? '{}' : '');
        } catch (err) {
          res.writeHead(400, { 'content-type': 'text/plain' }).end(String(err));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  /** The spans received so far that `match`. */
  find(match: (span: ReceivedSpan) => boolean): ReceivedSpan[] {
    return this.spans.filter(match);
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  return new OtlpReceiver().start();
}
