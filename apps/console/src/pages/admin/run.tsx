import { useEffect, useRef, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { restJson } from '../../api/rest';
import { useCan } from '../../api/session';
import {
  countOf,
  pageOf,
  rollbackBody,
  RUN_ROWS_PAGE_SIZE,
  RUN_SUMMARY_ROWS,
  runPageParams,
  runPageStateOf,
  shapeRollback,
  slicePage,
  summarizeRun,
  UNNAMED_RUN_ID,
  type RollbackMode,
  type RollbackPreview,
  type RollbackResponse,
  type RowEffect,
  type RunPageState,
  type RunRow,
  versionsOf,
} from '../../logic/admin-runs';
import { entityTypeLabel, entityTypeOfUrn } from '../../logic/urn';
import { EmptyState, EntityLink, Loading, PageTitle, Pager, Pill, Time } from '../../ui/components';
import { AdminFailure, AdminGate, Figure, MorePager, useRest } from './admin-ui';
import { forgetRunActor, RunActor } from './run-actor';

/**
 * `/admin/runs/:runId`: what one ingestion run wrote (`POST /runs?action=describe`: a summary of up to 1,000 of its
 * values, and every value page by page) and its rollback (`POST /runs?action=rollback`), which always runs as a dry
 * run first: the preview says what would be reverted, hidden or deleted, and only then is the real rollback offered.
 */
export function Component() {
  return (
    <AdminGate page="runs">
      <Run />
    </AdminGate>
  );
}

function Run() {
  const runId = useParams().runId ?? '';
  const [params, setParams] = useSearchParams();
  const state = runPageStateOf(params);
  const [round, setRound] = useState(0);
  const summary = useRest<{ value: RunRow[] }>(
    'POST',
    '/runs?action=describe',
    { runId, start: 0, count: RUN_SUMMARY_ROWS + 1 },
    `summary ${runId} ${round}`,
  );
  const rows = useRest<{ value: RunRow[] }>(
    'POST',
    '/runs?action=describe',
    { runId, start: state.start, count: RUN_ROWS_PAGE_SIZE + 1 },
    `rows ${runId} ${state.start} ${round}`,
  );
  const update = (next: Partial<RunPageState>) => {
    setParams(runPageParams({ ...state, ...next }), { replace: false });
  };

  return (
    <>
      <p>
        <Link to="/admin/runs">← Ingestion runs</Link>
      </p>
      <PageTitle title={`Run ${runId}`}>
        Run <span className="mono">{runId}</span>
      </PageTitle>
      <RunSummarySection summary={summary} runId={runId} />
      <section className="admin-section" aria-labelledby="written-title">
        <h2 id="written-title">What it wrote</h2>
        <RunRows
          rows={rows}
          start={state.start}
          onPage={(start) => {
            update({ start });
          }}
          onRetry={rows.refetch}
        />
      </section>
      <RollbackSection
        runId={runId}
        versions={summary.data === undefined ? undefined : versionsOf(summary.data.value)}
        mode={state.mode}
        onMode={(mode) => {
          update({ mode });
        }}
        onRolledBack={() => {
          forgetRunActor(runId);
          setRound((value) => value + 1);
        }}
      />
    </>
  );
}

function RunSummarySection({
  summary,
  runId,
}: {
  readonly summary: ReturnType<typeof useRest<{ value: RunRow[] }>>;
  readonly runId: string;
}) {
  if (summary.error !== undefined) return <AdminFailure page="runs" error={summary.error} retry={summary.refetch} />;
  if (summary.data === undefined) return <Loading what="Reading the run" />;
  const contents = summarizeRun(summary.data.value, RUN_SUMMARY_ROWS + 1);
  const atLeast = contents.complete ? '' : 'at least ';
  if (contents.rows === 0) {
    return (
      <EmptyState>
        This run is not the last writer of any value: it may have been rolled back already, or every value it wrote was
        written again since (by another run, or without a run id).
      </EmptyState>
    );
  }
  return (
    <section aria-labelledby="summary-title">
      <h2 id="summary-title" className="visually-hidden">
        Summary
      </h2>
      <dl className="figures">
        <Figure label="Values it holds">
          {atLeast}
          {contents.rows.toLocaleString()}
        </Figure>
        <Figure label="Entities">
          {atLeast}
          {contents.entities.toLocaleString()}
        </Figure>
        <Figure label="Entities it created">
          {atLeast}
          {contents.createdEntities.toLocaleString()}
        </Figure>
        <Figure label="Last written">
          <Time millis={contents.newest} />
        </Figure>
        <Figure label="Written by">
          <RunActor runId={runId} />
        </Figure>
      </dl>
      <p>
        <strong>Entity types:</strong>{' '}
        {contents.entityTypes.map((type) => `${entityTypeLabel(type.type)} (${type.entities})`).join(', ')}
        <br />
        <strong>Aspects:</strong>{' '}
        {contents.aspects
          .slice(0, 12)
          .map((aspect) => `${aspect.aspect} (${aspect.rows})`)
          .join(', ')}
        {contents.aspects.length > 12 ? `, and ${contents.aspects.length - 12} more` : ''}
      </p>
      {contents.complete ? null : (
        <p className="muted">The figures count the first {RUN_SUMMARY_ROWS.toLocaleString()} values of the run.</p>
      )}
    </section>
  );
}

function RunRows({
  rows,
  start,
  onPage,
  onRetry,
}: {
  readonly rows: ReturnType<typeof useRest<{ value: RunRow[] }>>;
  readonly start: number;
  readonly onPage: (start: number) => void;
  readonly onRetry: () => void;
}) {
  if (rows.error !== undefined) return <AdminFailure page="runs" error={rows.error} retry={onRetry} />;
  if (rows.data === undefined) return <Loading what="Loading what the run wrote" />;
  const page = pageOf(rows.data.value, RUN_ROWS_PAGE_SIZE);
  if (page.rows.length === 0) {
    return (
      <EmptyState>
        {start > 0 ? (
          <button
            type="button"
            className="button"
            onClick={() => {
              onPage(0);
            }}
          >
            Back to the first page
          </button>
        ) : (
          'Nothing to show.'
        )}
      </EmptyState>
    );
  }
  return (
    <>
      <div className="table-wrap">
        <table className="table" aria-label="Values the run wrote" aria-busy={rows.loading}>
          <thead>
            <tr>
              <th scope="col">Entity</th>
              <th scope="col">Type</th>
              <th scope="col">Aspect</th>
              <th scope="col">Version</th>
              <th scope="col">Written</th>
            </tr>
          </thead>
          <tbody>
            {page.rows.map((row) => (
              <tr key={`${row.urn} ${row.aspectName}`} data-testid="run-value-row">
                <td className="wrap-anywhere">
                  <EntityLink urn={row.urn} />
                </td>
                <td>{entityTypeLabel(entityTypeOfUrn(row.urn) ?? 'unknown')}</td>
                <td>
                  <span className="mono">{row.aspectName}</span>{' '}
                  {row.keyAspect ? <Pill kind="warning">key: the run created the entity</Pill> : null}
                </td>
                <td>{row.version ?? '—'}</td>
                <td className="nowrap">
                  <Time millis={row.timestamp} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <MorePager
        start={start}
        count={RUN_ROWS_PAGE_SIZE}
        shown={page.rows.length}
        hasMore={page.hasMore}
        noun="Values"
        onPage={onPage}
      />
    </>
  );
}

type Step =
  | { readonly kind: 'idle' }
  | { readonly kind: 'previewing' }
  | { readonly kind: 'preview'; readonly preview: RollbackPreview }
  | { readonly kind: 'rolling'; readonly preview: RollbackPreview }
  | { readonly kind: 'done'; readonly outcome: RollbackPreview }
  | { readonly kind: 'failed'; readonly error: unknown; readonly preview?: RollbackPreview | undefined };

function RollbackSection({
  runId,
  versions,
  mode,
  onMode,
  onRolledBack,
}: {
  readonly runId: string;
  /** The versions of the run's rows (its first 1,000), to tell a value removed from one restored. */
  readonly versions: ReadonlyMap<string, number> | undefined;
  readonly mode: RollbackMode;
  readonly onMode: (mode: RollbackMode) => void;
  readonly onRolledBack: () => void;
}) {
  const canRollBack = useCan('manageIngestion');
  const [step, setStep] = useState<Step>({ kind: 'idle' });
  const previewHeading = useRef<HTMLHeadingElement>(null);
  const resultHeading = useRef<HTMLHeadingElement>(null);

  // A preview holds for the run and mode it was made for.
  useEffect(() => {
    setStep({ kind: 'idle' });
  }, [runId, mode]);

  useEffect(() => {
    if (step.kind === 'preview') previewHeading.current?.focus();
    if (step.kind === 'done') resultHeading.current?.focus();
  }, [step.kind]);

  async function preview() {
    setStep({ kind: 'previewing' });
    try {
      const answer = await restJson<{ value: RollbackResponse }>(
        'POST',
        '/runs?action=rollback',
        rollbackBody(runId, mode, true),
      );
      setStep({ kind: 'preview', preview: shapeRollback(answer.value, mode, true, versions) });
    } catch (error) {
      setStep({ kind: 'failed', error });
    }
  }

  async function rollBack(confirmed: RollbackPreview) {
    setStep({ kind: 'rolling', preview: confirmed });
    try {
      const answer = await restJson<{ value: RollbackResponse }>(
        'POST',
        '/runs?action=rollback',
        rollbackBody(runId, mode, false),
      );
      // The run's rows are gone after it: the versions seen at the preview tell what happened.
      setStep({ kind: 'done', outcome: shapeRollback(answer.value, mode, false, versions) });
      onRolledBack();
    } catch (error) {
      setStep({ kind: 'failed', error, preview: confirmed });
    }
  }

  const unnamed = runId === UNNAMED_RUN_ID;
  const busy = step.kind === 'previewing' || step.kind === 'rolling';
  return (
    <section className="admin-section" aria-labelledby="rollback-title">
      <h2 id="rollback-title">Roll back this run</h2>
      {unnamed ? (
        <p className="notice">
          {UNNAMED_RUN_ID} gathers the values written without a run id: it is not one ingestion and cannot be rolled
          back.
        </p>
      ) : !canRollBack ? (
        <p className="notice" data-testid="rollback-refused">
          You need the Manage Ingestion privilege to roll back a run; ask an administrator.
        </p>
      ) : (
        <>
          <p>
            Rolling back puts every value this run wrote last back to the value another run wrote before it, or removes
            it, and removes the timeseries values it wrote. You see what it would do before anything changes.
          </p>
          <fieldset className="admin-fieldset" disabled={busy}>
            <legend>Entities the run created</legend>
            <div className="admin-checks">
              <label className="admin-check">
                <input
                  type="radio"
                  name="rollback-mode"
                  value="soft"
                  checked={mode === 'soft'}
                  onChange={() => {
                    onMode('soft');
                  }}
                />
                Hide them (soft delete: they can be restored)
              </label>
              <label className="admin-check">
                <input
                  type="radio"
                  name="rollback-mode"
                  value="hard"
                  checked={mode === 'hard'}
                  onChange={() => {
                    onMode('hard');
                  }}
                />
                Delete them for good (hard delete)
              </label>
            </div>
          </fieldset>
          <div className="confirm-row">
            <button
              type="button"
              className="button"
              disabled={busy}
              onClick={() => void preview()}
              aria-describedby="preview-hint"
            >
              {step.kind === 'preview' || step.kind === 'done' ? 'Preview again' : 'Preview rollback'}
            </button>
            <span id="preview-hint" className="muted">
              A dry run: nothing changes.
            </span>
          </div>
        </>
      )}
      {step.kind === 'previewing' ? <Loading what="Asking for a dry run" /> : null}
      {step.kind === 'preview' || step.kind === 'rolling' ? (
        <div className="rollback-box rollback-preview" data-testid="rollback-preview">
          <h3 ref={previewHeading} tabIndex={-1}>
            Preview: what rolling back would do
          </h3>
          <RollbackFigures result={step.preview} />
          {step.preview.empty ? (
            <p>This run holds nothing to roll back.</p>
          ) : (
            <div className="confirm-row">
              <strong>
                {step.preview.mode === 'hard'
                  ? 'This cannot be undone: the entities the run created are deleted for good.'
                  : 'Roll back now, as previewed?'}
              </strong>
              <button
                type="button"
                className="button button-danger"
                disabled={step.kind === 'rolling'}
                onClick={() => void rollBack(step.preview)}
              >
                Roll back run
              </button>
              <button
                type="button"
                className="button button-quiet"
                disabled={step.kind === 'rolling'}
                onClick={() => {
                  setStep({ kind: 'idle' });
                }}
              >
                Cancel
              </button>
            </div>
          )}
          {step.kind === 'rolling' ? <Loading what="Rolling back: waiting until every write is applied" /> : null}
        </div>
      ) : null}
      {step.kind === 'done' ? (
        <div className="rollback-box rollback-result" data-testid="rollback-result" role="status">
          <h3 ref={resultHeading} tabIndex={-1}>
            Rolled back
          </h3>
          <RollbackFigures result={step.outcome} />
        </div>
      ) : null}
      {step.kind === 'failed' ? (
        <>
          <AdminFailure page="runs" error={step.error} />
          {step.preview === undefined ? null : (
            <p className="muted">
              The rollback may have been applied in part (the server answers once every write is applied): preview again
              to see what is left.
            </p>
          )}
        </>
      ) : null}
    </section>
  );
}

const ROWS_SHOWN = 20;

const EFFECT_PILL: Record<RowEffect, { kind: 'danger' | 'warning' | 'ok' | 'default'; text: string }> = {
  'entity-deleted': { kind: 'danger', text: 'entity deleted' },
  'entity-hidden': { kind: 'danger', text: 'entity hidden' },
  removed: { kind: 'warning', text: 'removed' },
  restored: { kind: 'ok', text: 'restored' },
  reverted: { kind: 'default', text: 'reverted' },
};

function RollbackFigures({ result }: { readonly result: RollbackPreview }) {
  const [start, setStart] = useState(0);
  const rows = slicePage(result.rows, start, ROWS_SHOWN);
  const removedLabel = result.mode === 'hard' ? 'Entities deleted' : 'Entities hidden';
  return (
    <>
      <dl className="figures">
        <Figure label="Entities affected">{result.entitiesAffected.toLocaleString()}</Figure>
        <Figure label={result.dryRun ? 'Aspect values to revert' : 'Aspect values reverted'}>
          {result.aspectsReverted.toLocaleString()}
        </Figure>
        <Figure label={result.dryRun ? `${removedLabel} (to be)` : removedLabel}>
          {result.entitiesRemoved.toLocaleString()}
        </Figure>
        <Figure label="Created entities holding other runs' values">
          {result.unsafeEntities.length.toLocaleString()}
        </Figure>
      </dl>
      <ul className="statements">
        {result.statements.map((statement) => (
          <li key={statement}>{statement}</li>
        ))}
      </ul>
      {result.unsafeEntities.length > 0 ? (
        <details>
          <summary>{countOf(result.unsafeEntities.length, 'entity', 'entities')} with other runs' values</summary>
          <ul>
            {result.unsafeEntities.slice(0, 100).map((urn) => (
              <li key={urn} className="wrap-anywhere">
                <EntityLink urn={urn} />
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      {result.rows.length > 0 ? (
        <>
          <div className="table-wrap">
            <table className="table" aria-label={result.dryRun ? 'Values the rollback would change' : 'Values changed'}>
              <thead>
                <tr>
                  <th scope="col">Entity</th>
                  <th scope="col">Aspect</th>
                  <th scope="col">{result.dryRun ? 'Would be' : 'Was'}</th>
                  <th scope="col">Written</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={`${row.urn} ${row.aspectName}`}>
                    <td className="wrap-anywhere">
                      <EntityLink urn={row.urn} />
                      <div className="muted">{entityTypeLabel(row.entityType)}</div>
                    </td>
                    <td className="mono">{row.aspectName}</td>
                    <td>
                      <Pill kind={EFFECT_PILL[row.effect].kind}>{EFFECT_PILL[row.effect].text}</Pill>{' '}
                      <span className="muted">{row.effectLabel}</span>
                    </td>
                    <td className="nowrap">
                      <Time millis={row.timestamp} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager start={start} count={ROWS_SHOWN} total={result.rows.length} onPage={setStart} />
          {result.truncated ? (
            <p className="muted">
              The server lists the first {result.rows.length} values; the counts above cover them all.
            </p>
          ) : null}
        </>
      ) : null}
    </>
  );
}
