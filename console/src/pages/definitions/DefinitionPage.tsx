import { useMemo } from 'preact/hooks';
import { api, ApiError, unwrap } from '../../api';
import { JsonViewer } from '../../components/JsonViewer';
import { RelativeTime } from '../../components/RelativeTime';
import { EmptyState, ErrorState, Loading } from '../../components/states';
import { formatUtc } from '../../format';
import { useAsync } from '../../hooks';
import { describeSteps, groupByName, stepAnchor, type StepJump } from './definition-view';
import './definitions.css';

async function loadDefinition(id: string) {
  const [definition, all] = await Promise.all([
    unwrap(api.GET('/v1/workflow-definitions/{id}', { params: { path: { id } } })),
    unwrap(api.GET('/v1/workflow-definitions')),
  ]);
  const versions = groupByName(all.filter((d) => d.name === definition.name))[0]?.versions ?? [];
  return { definition, versions };
}

/** One definition version: its steps in order with their types, main fields and jumps, and its JSON. */
export function DefinitionPage({ id = '' }: { id?: string }) {
  const state = useAsync(() => loadDefinition(id), [id]);

  if (state.error !== undefined && !state.loading) {
    if (state.error instanceof ApiError && state.error.status === 404) {
      return (
        <section>
          <h1>Definition not found</h1>
          <EmptyState title="This workspace has no definition with this id">
            It may belong to another workspace.{' '}
            <a href="/console/definitions">See all definitions</a>.
          </EmptyState>
        </section>
      );
    }
    return (
      <section>
        <h1>Definition</h1>
        <ErrorState error={state.error} onRetry={state.reload} />
      </section>
    );
  }
  if (!state.data || state.data.definition.id !== id)
    return <Loading label="Loading definition…" />;
  return <DefinitionView {...state.data} />;
}

function DefinitionView({ definition, versions }: Awaited<ReturnType<typeof loadDefinition>>) {
  const steps = useMemo(() => describeSteps(definition.steps), [definition]);
  return (
    <section class="definition-page">
      <p class="breadcrumb">
        <a href="/console/definitions">Definitions</a>
      </p>
      <h1>
        {definition.name} <span class="version-tag">version {definition.version}</span>
      </h1>
      <div class="panel">
        {definition.description ? (
          <p class="definition-description">{definition.description}</p>
        ) : (
          <p class="muted">No description.</p>
        )}
        <dl class="facts">
          <div>
            <dt>Id</dt>
            <dd class="mono">{definition.id}</dd>
          </div>
          <div>
            <dt>Created</dt>
            <dd>
              <RelativeTime iso={definition.createdAt} />{' '}
              <span class="muted">({formatUtc(definition.createdAt)})</span>
            </dd>
          </div>
          <div>
            <dt>Steps</dt>
            <dd>{definition.steps.length}</dd>
          </div>
        </dl>
        <p>
          <a
            class="button"
            href={`/console/runs?definitionId=${encodeURIComponent(definition.id)}`}
          >
            Runs of this version
          </a>
        </p>
      </div>

      {versions.length > 1 && (
        <nav aria-label="Versions of this definition" class="versions">
          <h2>Versions</h2>
          <ul>
            {versions.map((v) => (
              <li key={v.id}>
                {v.id === definition.id ? (
                  <span aria-current="page">
                    <strong>{v.version}</strong> (this one)
                  </span>
                ) : (
                  <a href={`/console/definitions/${encodeURIComponent(v.id)}`}>{v.version}</a>
                )}{' '}
                <span class="muted">
                  created <RelativeTime iso={v.createdAt} />
                </span>
              </li>
            ))}
          </ul>
        </nav>
      )}

      <h2>Steps</h2>
      <ol class="step-list">
        {steps.map((step) => (
          <li key={step.index} id={stepAnchor(step.index)} class="step-card" tabIndex={-1}>
            <h3>
              <span class="step-number">{step.index + 1}.</span> <span>{step.name}</span>{' '}
              <span class="badge step-type">{step.type}</span>
            </h3>
            {step.fields.length > 0 && (
              <dl class="step-fields">
                {step.fields.map((field) => (
                  <div key={field.label}>
                    <dt>{field.label}</dt>
                    <dd class="mono">{field.value}</dd>
                  </div>
                ))}
              </dl>
            )}
            {step.jumps.length > 0 && (
              <ul class="step-jumps" aria-label={`Jumps of step ${step.index + 1}`}>
                {step.jumps.map((jump) => (
                  <li key={jump.label}>
                    <JumpLink jump={jump} />
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ol>

      <h2>Full definition (JSON)</h2>
      <JsonViewer value={definition} label="The definition as the API answers it" openDepth={2} />
    </section>
  );
}

function JumpLink({ jump }: { jump: StepJump }) {
  const suffix = jump.isDefault ? ' (default)' : '';
  return (
    <>
      <span class="jump-label">{jump.label}</span> →{' '}
      {jump.targetIndex === undefined ? (
        <span>
          {jump.targetName}
          {suffix}
        </span>
      ) : (
        <a
          href={`#${stepAnchor(jump.targetIndex)}`}
          onClick={(event) => {
            // Move focus to the target too, so keyboard users continue from there.
            const target = document.getElementById(stepAnchor(jump.targetIndex!));
            if (target) {
              event.preventDefault();
              target.scrollIntoView({ block: 'start' });
              target.focus({ preventScroll: true });
            }
          }}
        >
          step {jump.targetIndex + 1}: {jump.targetName}
          {suffix}
        </a>
      )}
    </>
  );
}
