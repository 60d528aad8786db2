import { useEffect, useRef, useState, type SyntheticEvent } from 'react';
import { useSearchParams } from 'react-router';
import { describeFailure } from '../../api/errors';
import { useGql } from '../../api/graphql';
import { restJson } from '../../api/rest';
import {
  followedTasksOf,
  formatDuration,
  formatMegabytes,
  isTaskId,
  parseRestoreAnswer,
  RESTORE_BATCH_SIZE,
  restoreBody,
  restoreProblem,
  restoreScope,
  sortedIndexSizes,
  taskIdInMessage,
  taskProgressOf,
  withFollowedTask,
  withoutFollowedTask,
  type IndexSize,
  type RestoreRequest,
  type TaskProgress,
} from '../../logic/admin-operations';
import { entityTypeLabel, entityTypeOfGraphql } from '../../logic/urn';
import { EmptyState, ErrorNotice, Loading, PageTitle, Pager, Pill, Time } from '../../ui/components';
import { AdminFailure, AdminGate, Figure, ProgressBar, useRest, type RestRead } from './admin-ui';

/**
 * `/admin/operations`: the indices' sizes (timeseries indices from `getIndexSizes`, the search index's entities per
 * type, the indexers' progress), the tasks followed (their ids in the URL; polled every 1.5 s while they run, no
 * longer once they end or the page is left), the metadata tests' evaluation tasks, and starting a rebuild of every
 * index or a restore of some rows — each after a confirmation, then followed to its end.
 */
export function Component() {
  return (
    <AdminGate page="operations">
      <Operations />
    </AdminGate>
  );
}

/** The operations' actions, under DataHub's frontend path (served by the gateway, proxied by the dev server). */
const OPERATIONS = '/api/gms/operations';
const POLL_MILLIS = 1500;

function Operations() {
  const [params, setParams] = useSearchParams();
  const followed = followedTasksOf(params);
  const follow = (taskId: string) => {
    setParams(withFollowedTask(params, taskId));
  };
  const unfollow = (taskId: string) => {
    setParams(withoutFollowedTask(params, taskId));
  };
  const sizes = useRest<{ value: { indexSizes: IndexSize[] } }>('POST', `${OPERATIONS}?action=getIndexSizes`, {});
  if (sizes.error !== undefined && describeFailure(sizes.error).status === 403) {
    // The least of the operations refused: the user holds none of the operations' privileges.
    return (
      <>
        <PageTitle title="Operations">Operations</PageTitle>
        <AdminFailure page="operations" error={sizes.error} />
      </>
    );
  }
  return (
    <>
      <PageTitle title="Operations">Operations</PageTitle>
      <p className="admin-lead">The indices that serve search, lineage and timeseries reads, and their maintenance.</p>
      <IndexSizes sizes={sizes} />
      <section className="admin-section" aria-labelledby="tasks-title">
        <h2 id="tasks-title">Tasks</h2>
        <FollowedTasks ids={followed} onUnfollow={unfollow} />
        <FollowForm onFollow={follow} />
        <TestEvaluationTasks />
      </section>
      <RebuildSection onStarted={follow} />
      <RestoreSection />
    </>
  );
}

const SIZES_SHOWN = 20;

function IndexSizes({ sizes }: { readonly sizes: RestRead<{ value: { indexSizes: IndexSize[] } }> }) {
  const [start, setStart] = useState(0);
  if (sizes.error !== undefined) {
    return (
      <section className="admin-section" aria-labelledby="sizes-title">
        <h2 id="sizes-title">Index sizes</h2>
        <AdminFailure page="operations" error={sizes.error} retry={sizes.refetch} />
      </section>
    );
  }
  const rows = sortedIndexSizes(sizes.data?.value.indexSizes ?? []);
  const total = rows.reduce((sum, row) => sum + row.megabytes, 0);
  return (
    <section className="admin-section" aria-labelledby="sizes-title">
      <h2 id="sizes-title">Index sizes</h2>
      <h3>Timeseries indices</h3>
      {sizes.data === undefined ? (
        <Loading what="Measuring the timeseries indices" />
      ) : rows.length === 0 ? (
        <EmptyState>No timeseries index.</EmptyState>
      ) : (
        <>
          <p className="muted">
            {rows.length} indices, {formatMegabytes(total)} on disk (primary copy).{' '}
            <button type="button" className="button button-small" onClick={sizes.refetch} disabled={sizes.loading}>
              Measure again
            </button>
          </p>
          <div className="table-wrap">
            <table className="table" aria-label="Timeseries indices">
              <thead>
                <tr>
                  <th scope="col">Index</th>
                  <th scope="col">Entity type</th>
                  <th scope="col">Aspect</th>
                  <th scope="col">Size</th>
                </tr>
              </thead>
              <tbody>
                {rows.slice(start, start + SIZES_SHOWN).map((row) => (
                  <tr key={row.indexName} data-testid="index-row">
                    <td className="mono wrap-anywhere">{row.indexName}</td>
                    <td>{row.entityName}</td>
                    <td className="mono">{row.aspectName}</td>
                    <td className="nowrap">{formatMegabytes(row.megabytes)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager start={start} count={SIZES_SHOWN} total={rows.length} onPage={setStart} />
        </>
      )}
      <SearchIndexCounts />
      <IndexerProgress />
    </section>
  );
}

const ENTITY_TYPE_COUNTS = `query consoleAdminEntityTypeCounts {
  aggregateAcrossEntities(input: { query: "*", facets: ["_entityType"], searchFlags: { maxAggValues: 100 } }) {
    facets { field aggregations { value count } }
  }
}`;

interface EntityTypeCounts {
  aggregateAcrossEntities: {
    facets: { field: string; aggregations: { value: string; count: number }[] }[] | null;
  } | null;
}

function SearchIndexCounts() {
  const counts = useGql<EntityTypeCounts>(ENTITY_TYPE_COUNTS);
  const [start, setStart] = useState(0);
  const facet = counts.data?.aggregateAcrossEntities?.facets?.find((candidate) => candidate.field === '_entityType');
  const rows = [...(facet?.aggregations ?? [])].sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
  const total = rows.reduce((sum, row) => sum + row.count, 0);
  return (
    <>
      <h3>Search index</h3>
      {counts.error !== undefined ? (
        <ErrorNotice error={counts.error} retry={counts.refetch} />
      ) : counts.data === undefined ? (
        <Loading what="Counting the search index" />
      ) : rows.length === 0 ? (
        <EmptyState>The search index holds no entity.</EmptyState>
      ) : (
        <>
          <p className="muted">{total.toLocaleString()} searchable entities (soft-deleted ones are not counted).</p>
          <div className="table-wrap">
            <table className="table" aria-label="Search index: entities per type">
              <thead>
                <tr>
                  <th scope="col">Entity type</th>
                  <th scope="col">Documents</th>
                </tr>
              </thead>
              <tbody>
                {rows.slice(start, start + SIZES_SHOWN).map((row) => (
                  <tr key={row.value} data-testid="index-row">
                    <td>{entityTypeLabel(entityTypeOfGraphql(row.value))}</td>
                    <td>{row.count.toLocaleString()}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager start={start} count={SIZES_SHOWN} total={rows.length} onPage={setStart} />
        </>
      )}
    </>
  );
}

interface IndexerReport {
  readonly indexer: string;
  readonly recordsApplied: number;
  readonly recordsSkipped: number;
  readonly recentLagMs?: { p50: number; p95: number; max: number };
  readonly backlog?: { pending?: number };
}

function IndexerProgress() {
  const search = useRest<IndexerReport>('GET', '/openapi/operations/indices/progress');
  const timeseries = useRest<IndexerReport>('GET', '/openapi/operations/indices/timeseries/progress');
  return (
    <>
      <h3>Indexers</h3>
      <p className="muted">
        What each indexer applied since it started, and how far behind the log it runs.{' '}
        <button
          type="button"
          className="button button-small"
          onClick={() => {
            search.refetch();
            timeseries.refetch();
          }}
        >
          Refresh
        </button>
      </p>
      <div className="cards">
        {[
          { title: 'Search and lineage', read: search },
          { title: 'Timeseries', read: timeseries },
        ].map(({ title, read }) => (
          <div className="card" key={title}>
            <h4>{title}</h4>
            {read.error !== undefined ? (
              <p className="muted">Not available to you: {describeFailure(read.error).detail}</p>
            ) : read.data === undefined ? (
              <Loading />
            ) : (
              <dl className="figures">
                <Figure label="Change logs applied">{read.data.recordsApplied.toLocaleString()}</Figure>
                {read.data.backlog?.pending === undefined ? null : (
                  <Figure label="Waiting">{read.data.backlog.pending.toLocaleString()}</Figure>
                )}
                {read.data.recentLagMs === undefined ? null : (
                  <Figure label="Lag (p95)">{formatDuration(read.data.recentLagMs.p95)}</Figure>
                )}
              </dl>
            )}
          </div>
        ))}
      </div>
    </>
  );
}

/** A task's status, asked every 1.5 s until it ends; the timer stops when the component goes (the page is left). */
function useTaskProgress(taskId: string): { progress: TaskProgress | undefined; error: unknown } {
  const [progress, setProgress] = useState<TaskProgress | undefined>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    setProgress(undefined);
    setError(undefined);
    async function poll() {
      try {
        const answer = await restJson<{ value: unknown }>('POST', `${OPERATIONS}?action=getEsTaskStatus`, {
          task: taskId,
        });
        if (!live) return;
        const next = taskProgressOf(taskId, answer.value);
        setProgress(next);
        setError(undefined);
        if (!next.completed) timer = setTimeout(() => void poll(), POLL_MILLIS);
      } catch (failure) {
        if (!live) return;
        setError(failure);
        // A refusal or a bad id will not change: only a transient failure is asked again.
        const status = describeFailure(failure).status;
        if (status === 0 || status >= 500) timer = setTimeout(() => void poll(), POLL_MILLIS * 2);
      }
    }
    void poll();
    return () => {
      live = false;
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [taskId]);
  return { progress, error };
}

function FollowedTasks({
  ids,
  onUnfollow,
}: {
  readonly ids: readonly string[];
  readonly onUnfollow: (id: string) => void;
}) {
  if (ids.length === 0) {
    return <p className="muted">No task followed: start a rebuild below, or follow a task by its id.</p>;
  }
  return (
    <div className="table-wrap">
      <table className="table" aria-label="Tasks followed">
        <thead>
          <tr>
            <th scope="col">Task</th>
            <th scope="col">State</th>
            <th scope="col">Progress</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {ids.map((id) => (
            <FollowedTask
              key={id}
              id={id}
              onUnfollow={() => {
                onUnfollow(id);
              }}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

function FollowedTask({ id, onUnfollow }: { readonly id: string; readonly onUnfollow: () => void }) {
  const { progress, error } = useTaskProgress(id);
  return (
    <tr data-testid="task-row">
      <td className="mono wrap-anywhere">{id}</td>
      <td>
        {error !== undefined && progress === undefined ? (
          <Pill kind="danger">{describeFailure(error).title}</Pill>
        ) : progress === undefined ? (
          <span className="muted">asking…</span>
        ) : (
          <TaskState progress={progress} />
        )}
      </td>
      <td className="task-cell">
        {error !== undefined ? (
          <span className="form-error">{describeFailure(error).detail}</span>
        ) : progress === undefined ? null : (
          <TaskFigures progress={progress} />
        )}
      </td>
      <td>
        <button type="button" className="button button-small button-quiet" onClick={onUnfollow}>
          Stop following <span className="visually-hidden">{id}</span>
        </button>
      </td>
    </tr>
  );
}

function TaskState({ progress }: { readonly progress: TaskProgress }) {
  if (!progress.known) return <Pill kind="warning">unknown task</Pill>;
  if (progress.completed && progress.error !== undefined) return <Pill kind="danger">failed</Pill>;
  if (progress.completed) return <Pill kind="ok">done</Pill>;
  return <Pill kind="warning">{progress.phase ?? 'running'}</Pill>;
}

function TaskFigures({ progress }: { readonly progress: TaskProgress }) {
  if (!progress.known) return <span className="muted">{progress.error}</span>;
  return (
    <>
      <ProgressBar
        fraction={progress.fraction}
        label={`Progress of ${progress.taskId}${progress.phase === undefined ? '' : `, ${progress.phase}`}`}
      />
      <div className="muted">
        {[
          progress.done !== undefined && progress.total !== undefined
            ? `${progress.done.toLocaleString()} of ${progress.total.toLocaleString()}`
            : undefined,
          progress.ratePerSecond !== undefined && progress.ratePerSecond > 0
            ? `${Math.round(progress.ratePerSecond).toLocaleString()} ${progress.rateUnit}`
            : undefined,
          progress.pendingChangeLogs !== undefined && progress.pendingChangeLogs > 0
            ? `${progress.pendingChangeLogs.toLocaleString()} change logs to index`
            : undefined,
          !progress.completed && progress.etaMillis !== undefined
            ? `about ${formatDuration(progress.etaMillis)} left`
            : undefined,
          progress.runTimeMillis !== undefined ? `ran ${formatDuration(progress.runTimeMillis)}` : undefined,
        ]
          .filter((part) => part !== undefined)
          .join(' · ')}
      </div>
      {progress.error === undefined ? null : <div className="form-error">{progress.error}</div>}
    </>
  );
}

function FollowForm({ onFollow }: { readonly onFollow: (id: string) => void }) {
  const [id, setId] = useState('');
  const valid = isTaskId(id);
  function submit(event: SyntheticEvent) {
    event.preventDefault();
    if (valid) {
      onFollow(id.trim());
      setId('');
    }
  }
  return (
    <form className="admin-toolbar" onSubmit={submit} aria-label="Follow a task">
      <div className="admin-field">
        <label htmlFor="task-id">
          Task id <span className="admin-hint">nodeId:number, e.g. from a truncation</span>
        </label>
        <input
          id="task-id"
          value={id}
          onChange={(event) => {
            setId(event.target.value);
          }}
          className="mono"
        />
      </div>
      <button type="submit" className="button" disabled={!valid}>
        Follow task
      </button>
    </form>
  );
}

interface EvaluationTask {
  readonly task: string;
  readonly test?: string;
  readonly entityTypes?: string[];
  readonly completed: boolean;
  readonly startedAt?: number;
  readonly finishedAt?: number | null;
  readonly status?: Record<string, unknown>;
  readonly error?: string;
}

function TestEvaluationTasks() {
  const [round, setRound] = useState(0);
  const tasks = useRest<{ autoEvaluation: boolean; tasks: EvaluationTask[] }>(
    'GET',
    '/openapi/operations/tests/evaluations?limit=10',
    undefined,
    `evaluations ${round}`,
  );
  const running = tasks.data?.tasks.some((task) => !task.completed) ?? false;
  useEffect(() => {
    if (!running) return;
    const timer = setTimeout(() => {
      setRound((value) => value + 1);
    }, POLL_MILLIS);
    return () => {
      clearTimeout(timer);
    };
  }, [running, round, tasks.data]);
  return (
    <>
      <h3>Metadata test evaluations</h3>
      {tasks.error !== undefined ? (
        <p className="muted">Not available to you: {describeFailure(tasks.error).detail}</p>
      ) : tasks.data === undefined ? (
        <Loading what="Loading the evaluations" />
      ) : tasks.data.tasks.length === 0 ? (
        <p className="muted">
          No evaluation task
          {tasks.data.autoEvaluation
            ? ': tests are evaluated again when they change.'
            : ' (automatic evaluation is off on this server).'}
        </p>
      ) : (
        <div className="table-wrap">
          <table className="table" aria-label="Metadata test evaluations">
            <thead>
              <tr>
                <th scope="col">Task</th>
                <th scope="col">Test</th>
                <th scope="col">Started</th>
                <th scope="col">Progress</th>
              </tr>
            </thead>
            <tbody>
              {tasks.data.tasks.map((task) => {
                const progress = taskProgressOf(task.task, {
                  completed: task.completed,
                  taskId: task.task,
                  status: task.status ?? {},
                  ...(task.error === undefined ? {} : { error: task.error }),
                });
                return (
                  <tr key={task.task} data-testid="task-row">
                    <td className="mono">{task.task}</td>
                    <td className="mono wrap-anywhere">{task.test ?? '—'}</td>
                    <td className="nowrap">
                      <Time millis={task.startedAt} />
                    </td>
                    <td className="task-cell">
                      <TaskState progress={progress} /> <TaskFigures progress={progress} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

function RebuildSection({ onStarted }: { readonly onStarted: (taskId: string) => void }) {
  const [step, setStep] = useState<'idle' | 'confirm' | 'starting'>('idle');
  const [error, setError] = useState<unknown>();
  async function start() {
    setStep('starting');
    setError(undefined);
    try {
      const answer = await restJson<{ value: string }>('POST', `${OPERATIONS}?action=rebuildIndices`, {});
      onStarted(answer.value);
      setStep('idle');
    } catch (failure) {
      setError(failure);
      setStep('idle');
    }
  }
  const running =
    error === undefined
      ? undefined
      : describeFailure(error).status === 409
        ? taskIdInMessage(describeFailure(error).detail)
        : undefined;
  return (
    <section className="admin-section" aria-labelledby="rebuild-title">
      <h2 id="rebuild-title">Rebuild every index</h2>
      <p>
        Empties the search, relationship and timeseries indices and fills them again from the primary store, so that
        they hold exactly what the store holds. Until it is done, searches and lineage see the indices filling back. One
        rebuild runs at a time.
      </p>
      {step === 'idle' ? (
        <button
          type="button"
          className="button"
          onClick={() => {
            setStep('confirm');
          }}
        >
          Rebuild indices…
        </button>
      ) : (
        <div className="rollback-box rollback-preview" role="group" aria-labelledby="rebuild-confirm">
          <p id="rebuild-confirm">
            <strong>Rebuild every index now?</strong> Search results will be incomplete until it ends.
          </p>
          <div className="confirm-row">
            <button
              type="button"
              className="button button-danger"
              disabled={step === 'starting'}
              onClick={() => void start()}
            >
              Start rebuild
            </button>
            <button
              type="button"
              className="button button-quiet"
              disabled={step === 'starting'}
              onClick={() => {
                setStep('idle');
              }}
            >
              Cancel
            </button>
          </div>
        </div>
      )}
      {error === undefined ? null : (
        <>
          <AdminFailure page="operations" error={error} />
          {running === undefined ? null : (
            <button
              type="button"
              className="button"
              onClick={() => {
                onStarted(running);
              }}
            >
              Follow the running task {running}
            </button>
          )}
        </>
      )}
    </section>
  );
}

interface RestoreRun {
  readonly request: RestoreRequest;
  readonly startedAt: number;
  readonly batches: number;
  readonly rows: number;
  readonly nextStart: number;
  readonly lastUrn: string | undefined;
  readonly complete: boolean;
  readonly stopped: boolean;
  readonly error: unknown;
}

function RestoreSection() {
  const [urn, setUrn] = useState('');
  const [urnLike, setUrnLike] = useState('');
  const [aspect, setAspect] = useState('');
  const [batchSize, setBatchSize] = useState(String(RESTORE_BATCH_SIZE));
  const [confirming, setConfirming] = useState<RestoreRequest | undefined>();
  const [run, setRun] = useState<RestoreRun | undefined>();
  const stop = useRef(false);
  const request: RestoreRequest = { urn, urnLike, aspect, batchSize: Number(batchSize) };
  const problem = restoreProblem(request);
  const running = run !== undefined && !run.complete && !run.stopped && run.error === undefined;

  // Leaving the page stops the restore after the batch in flight.
  useEffect(
    () => () => {
      stop.current = true;
    },
    [],
  );

  async function restore(confirmed: RestoreRequest) {
    setConfirming(undefined);
    stop.current = false;
    let state: RestoreRun = {
      request: confirmed,
      startedAt: Date.now(),
      batches: 0,
      rows: 0,
      nextStart: 0,
      lastUrn: undefined,
      complete: false,
      stopped: false,
      error: undefined,
    };
    setRun(state);
    // Read through a function: the loop awaits, and Stop (or leaving the page) sets the flag meanwhile.
    const stopRequested = () => stop.current;
    while (!state.complete) {
      if (stopRequested()) {
        state = { ...state, stopped: true };
        setRun(state);
        return;
      }
      try {
        const answer = await restJson<{ value: unknown }>(
          'POST',
          `${OPERATIONS}?action=restoreIndices`,
          restoreBody(confirmed, state.nextStart),
        );
        const batch = parseRestoreAnswer(answer.value);
        if (batch === undefined) throw new Error('The server answered a restore in an unexpected form');
        state = {
          ...state,
          batches: state.batches + 1,
          rows: state.rows + batch.rowsMigrated,
          nextStart: batch.nextStart,
          lastUrn: batch.lastUrn ?? state.lastUrn,
          complete: batch.complete || batch.rowsMigrated === 0,
        };
      } catch (failure) {
        state = { ...state, error: failure };
        setRun(state);
        return;
      }
      setRun(state);
    }
  }

  function submit(event: SyntheticEvent) {
    event.preventDefault();
    if (problem === undefined) setConfirming(request);
  }

  return (
    <section className="admin-section" aria-labelledby="restore-title">
      <h2 id="restore-title">Restore indices</h2>
      <p>
        Replays stored rows into every index (search, relationships, timeseries) without emptying them first: the way to
        repair some entities or aspects. Leave every field empty to restore everything.
      </p>
      <form onSubmit={submit} aria-label="Restore indices">
        <div className="admin-toolbar">
          <div className="admin-field admin-field-wide">
            <label htmlFor="restore-urn">
              Entity <span className="admin-hint">one URN</span>
            </label>
            <input
              id="restore-urn"
              value={urn}
              disabled={running}
              onChange={(event) => {
                setUrn(event.target.value);
              }}
            />
          </div>
          <div className="admin-field admin-field-wide">
            <label htmlFor="restore-like">
              URN pattern <span className="admin-hint">SQL LIKE with %, else a regular expression</span>
            </label>
            <input
              id="restore-like"
              value={urnLike}
              disabled={running}
              placeholder="urn:li:dataset:(urn:li:dataPlatform:hive,%"
              onChange={(event) => {
                setUrnLike(event.target.value);
              }}
            />
          </div>
          <div className="admin-field">
            <label htmlFor="restore-aspect">Aspect</label>
            <input
              id="restore-aspect"
              value={aspect}
              disabled={running}
              onChange={(event) => {
                setAspect(event.target.value);
              }}
            />
          </div>
          <div className="admin-field">
            <label htmlFor="restore-batch">Rows per call</label>
            <input
              id="restore-batch"
              type="number"
              min={1}
              max={100000}
              value={batchSize}
              disabled={running}
              onChange={(event) => {
                setBatchSize(event.target.value);
              }}
            />
          </div>
          <button type="submit" className="button" disabled={running || problem !== undefined}>
            Restore…
          </button>
        </div>
        {problem === undefined ? null : <p className="form-error">{problem}</p>}
      </form>
      {confirming === undefined ? null : (
        <div className="rollback-box rollback-preview" role="group" aria-labelledby="restore-confirm">
          <p id="restore-confirm">
            <strong>Restore the indices of {restoreScope(confirming)}?</strong> The rows are replayed{' '}
            {confirming.batchSize.toLocaleString()} at a time until every one is done.
          </p>
          <div className="confirm-row">
            <button type="button" className="button button-danger" onClick={() => void restore(confirming)}>
              Start restore
            </button>
            <button
              type="button"
              className="button button-quiet"
              onClick={() => {
                setConfirming(undefined);
              }}
            >
              Cancel
            </button>
          </div>
        </div>
      )}
      {run === undefined ? null : (
        <div className="table-wrap">
          <table className="table" aria-label="Restore">
            <thead>
              <tr>
                <th scope="col">Restore of</th>
                <th scope="col">State</th>
                <th scope="col">Progress</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              <tr data-testid="task-row">
                <td className="wrap-anywhere">{restoreScope(run.request)}</td>
                <td>
                  {run.error !== undefined ? (
                    <Pill kind="danger">failed</Pill>
                  ) : run.complete ? (
                    <Pill kind="ok">done</Pill>
                  ) : run.stopped ? (
                    <Pill kind="warning">stopped</Pill>
                  ) : (
                    <Pill kind="warning">restoring</Pill>
                  )}
                </td>
                <td className="task-cell">
                  <ProgressBar fraction={run.complete ? 1 : undefined} label="Progress of the restore" />
                  <div className="muted">
                    {run.rows.toLocaleString()} rows replayed in {run.batches} calls · ran{' '}
                    {formatDuration(Date.now() - run.startedAt)}
                    {run.lastUrn === undefined ? '' : ` · last ${run.lastUrn}`}
                  </div>
                  {run.complete ? (
                    <div className="muted">The indexers apply the replayed rows shortly: see their progress above.</div>
                  ) : null}
                  {run.error === undefined ? null : <AdminFailure page="operations" error={run.error} />}
                </td>
                <td>
                  {running ? (
                    <button
                      type="button"
                      className="button button-small"
                      onClick={() => {
                        stop.current = true;
                      }}
                    >
                      Stop
                    </button>
                  ) : null}
                </td>
              </tr>
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
