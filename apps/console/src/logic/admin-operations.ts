/**
 * The operations page's rules: index sizes in order, the status of a task as `getEsTaskStatus` answers it (a JSON
 * string holding a JSON string) turned into progress, the answer of a `restoreIndices` batch (DataHub's text) read
 * into figures, and the tasks a page follows in its URL. Pure functions (unit-tested in admin-operations.spec.ts).
 */

/** One timeseries index as `getIndexSizes` answers it. */
export interface IndexSize {
  readonly indexName: string;
  readonly entityName: string;
  readonly aspectName: string;
  readonly sizeInMb?: number;
  readonly sizeMb?: number;
}

/** Index sizes, largest first (then by name), each in megabytes. */
export function sortedIndexSizes(
  sizes: readonly IndexSize[],
): { indexName: string; entityName: string; aspectName: string; megabytes: number }[] {
  return sizes
    .map((size) => ({
      indexName: size.indexName,
      entityName: size.entityName,
      aspectName: size.aspectName,
      megabytes: size.sizeInMb ?? size.sizeMb ?? 0,
    }))
    .sort((a, b) => b.megabytes - a.megabytes || a.indexName.localeCompare(b.indexName));
}

/** A size in megabytes (10^6 bytes) in words: MB with up to three decimals, or kB below one MB, GB above 1000. */
export function formatMegabytes(megabytes: number): string {
  if (megabytes >= 1000) return `${(megabytes / 1000).toFixed(2)} GB`;
  if (megabytes >= 1) return `${megabytes.toFixed(megabytes >= 100 ? 0 : 2)} MB`;
  return `${(megabytes * 1000).toFixed(1)} kB`;
}

/** A task's progress, as the page shows it. */
export interface TaskProgress {
  readonly taskId: string;
  /** False when the server knows no such task. */
  readonly known: boolean;
  readonly completed: boolean;
  readonly error: string | undefined;
  readonly phase: string | undefined;
  /** Work done and to do (rows, entities or points), when the task says. */
  readonly done: number | undefined;
  readonly total: number | undefined;
  /** 0..1 when both are known. */
  readonly fraction: number | undefined;
  readonly ratePerSecond: number | undefined;
  readonly rateUnit: string;
  readonly etaMillis: number | undefined;
  readonly runTimeMillis: number | undefined;
  /** Change logs the indexers still have to apply (a rebuild's last phase). */
  readonly pendingChangeLogs: number | undefined;
  /** Other figures of the status, as they came. */
  readonly details: readonly { readonly name: string; readonly value: string }[];
}

function parseObject(text: unknown): Record<string, unknown> | undefined {
  if (typeof text === 'object' && text !== null && !Array.isArray(text)) return text as Record<string, unknown>;
  if (typeof text !== 'string') return undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

const SHOWN_FIGURES = new Set([
  'total',
  'created',
  'evaluated',
  'phase',
  'rows_per_second',
  'entities_per_second',
  'eta_millis',
  'change_logs_pending',
  'change_logs_pending_by_indexer',
  'retries',
]);

/**
 * The progress of a task from the `value` of `getEsTaskStatus` (a JSON string whose `status` is a JSON string) or
 * from the `status` counters of a metadata test's evaluation task.
 */
export function taskProgressOf(taskId: string, value: unknown): TaskProgress {
  const outer = parseObject(value);
  if (outer === undefined || (typeof outer.error === 'string' && outer.completed === undefined)) {
    return {
      taskId,
      known: false,
      completed: true,
      error: typeof outer?.error === 'string' ? outer.error : 'The server answered no status for this task',
      phase: undefined,
      done: undefined,
      total: undefined,
      fraction: undefined,
      ratePerSecond: undefined,
      rateUnit: '',
      etaMillis: undefined,
      runTimeMillis: undefined,
      pendingChangeLogs: undefined,
      details: [],
    };
  }
  const status = parseObject(outer.status) ?? {};
  const total = num(status.total);
  const evaluated = num(status.evaluated);
  // Elasticsearch's counters: the work done is what was created, updated or deleted so far.
  const counted = ['created', 'updated', 'deleted'].map((name) => num(status[name]));
  const done =
    evaluated ??
    (counted.every((count) => count === undefined)
      ? undefined
      : counted.reduce<number>((sum, count) => sum + (count ?? 0), 0));
  const fraction =
    total !== undefined && done !== undefined && total > 0 ? Math.min(1, Math.max(0, done / total)) : undefined;
  const rows = num(status.rows_per_second);
  const entities = num(status.entities_per_second);
  const runTimeNanos = num(outer.runTimeNanos);
  const error = outer.error ?? status.error;
  const details = Object.entries(status)
    .filter(([name, figure]) => !SHOWN_FIGURES.has(name) && (typeof figure === 'number' || typeof figure === 'string'))
    .map(([name, figure]) => ({ name: name.replace(/_/g, ' '), value: String(figure) }));
  return {
    taskId: typeof outer.taskId === 'string' ? outer.taskId : taskId,
    known: true,
    completed: outer.completed === true,
    error:
      typeof error === 'string' ? error : error === undefined || error === null ? undefined : JSON.stringify(error),
    phase: typeof status.phase === 'string' ? status.phase : undefined,
    done,
    total,
    fraction: outer.completed === true && error === undefined ? 1 : fraction,
    ratePerSecond: entities ?? rows,
    rateUnit: entities !== undefined ? 'entities/s' : 'rows/s',
    etaMillis: num(status.eta_millis),
    runTimeMillis: runTimeNanos === undefined ? undefined : Math.round(runTimeNanos / 1_000_000),
    pendingChangeLogs: num(status.change_logs_pending),
    details,
  };
}

/** A duration in words: `850 ms`, `12 s`, `3 min 5 s`, `2 h 4 min`. */
export function formatDuration(millis: number): string {
  if (millis < 1000) return `${Math.max(0, Math.round(millis))} ms`;
  const seconds = Math.round(millis / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** Task ids look like `<nodeId>:<number>`. */
const TASK_ID = /^[A-Za-z0-9_-]{1,64}:[1-9]\d{0,15}$/;

export function isTaskId(text: string): boolean {
  return TASK_ID.test(text.trim());
}

/** The tasks a page follows, from its URL (`task`, comma-separated, at most 20, in order, no repeats). */
export function followedTasksOf(params: URLSearchParams): string[] {
  const ids = (params.get('task') ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter(isTaskId);
  return [...new Set(ids)].slice(0, 20);
}

/** The URL parameters with one more task followed (newest first). */
export function withFollowedTask(params: URLSearchParams, taskId: string): URLSearchParams {
  const next = new URLSearchParams(params);
  const ids = [taskId, ...followedTasksOf(params).filter((id) => id !== taskId)].slice(0, 20);
  next.set('task', ids.join(','));
  return next;
}

/** The URL parameters without a task. */
export function withoutFollowedTask(params: URLSearchParams, taskId: string): URLSearchParams {
  const next = new URLSearchParams(params);
  const ids = followedTasksOf(params).filter((id) => id !== taskId);
  if (ids.length === 0) next.delete('task');
  else next.set('task', ids.join(','));
  return next;
}

/** A task id named in a message (a rebuild refused because another runs names it). */
export function taskIdInMessage(message: string): string | undefined {
  const match = /([A-Za-z0-9_-]{1,64}:[1-9]\d{0,15})/.exec(message);
  return match?.[1];
}

/** The figures of one `restoreIndices` batch, read from DataHub's text answer. */
export interface RestoreBatch {
  readonly rowsMigrated: number;
  readonly ignored: number;
  readonly timeTakenMs: number;
  readonly lastUrn: string | undefined;
  readonly lastAspect: string | undefined;
  readonly nextStart: number;
  readonly complete: boolean;
}

/** Reads a `restoreIndices` answer; undefined when it is not in the expected form. */
export function parseRestoreAnswer(value: unknown): RestoreBatch | undefined {
  if (typeof value !== 'string') return undefined;
  const result = /result=RestoreIndicesResult\((.*)\)\}?\s*$/s.exec(value)?.[1];
  if (result === undefined) return undefined;
  const field = (name: string): string | undefined => {
    const match = new RegExp(`(?:^|, )${name}=(.*?)(?=, [a-zA-Z]+=|$)`, 's').exec(result);
    return match?.[1];
  };
  const number = (name: string): number | undefined => {
    const raw = field(name);
    return raw !== undefined && /^-?\d+$/.test(raw) ? Number(raw) : undefined;
  };
  const rowsMigrated = number('rowsMigrated');
  const nextStart = number('nextStart');
  const complete = field('complete');
  if (rowsMigrated === undefined || nextStart === undefined || complete === undefined) return undefined;
  const lastUrn = field('lastUrn');
  const lastAspect = field('lastAspect');
  return {
    rowsMigrated,
    ignored: number('ignored') ?? 0,
    timeTakenMs: number('timeTakenMs') ?? 0,
    lastUrn: lastUrn === undefined || lastUrn === 'null' ? undefined : lastUrn,
    lastAspect: lastAspect === undefined || lastAspect === 'null' ? undefined : lastAspect,
    nextStart,
    complete: complete === 'true',
  };
}

/** What a person asks a restore to cover; empty fields do not narrow. */
export interface RestoreRequest {
  readonly urn: string;
  readonly urnLike: string;
  readonly aspect: string;
  readonly batchSize: number;
}

/** Rows one restore call replays, by default (the route's ceiling is 100,000). */
export const RESTORE_BATCH_SIZE = 1000;

/** The body of one `restoreIndices` call from `start`. */
export function restoreBody(request: RestoreRequest, start: number): Record<string, string | number> {
  const body: Record<string, string | number> = { start, batchSize: request.batchSize };
  if (request.urn.trim() !== '') body.urn = request.urn.trim();
  if (request.urnLike.trim() !== '') body.urnLike = request.urnLike.trim();
  if (request.aspect.trim() !== '') body.aspect = request.aspect.trim();
  return body;
}

/** A problem with a restore request to say before sending it, or undefined. */
export function restoreProblem(request: RestoreRequest): string | undefined {
  if (!Number.isInteger(request.batchSize) || request.batchSize < 1 || request.batchSize > 100_000) {
    return 'The batch size must be a whole number from 1 to 100,000.';
  }
  if (request.urn.trim() !== '' && !request.urn.trim().startsWith('urn:li:')) {
    return 'The URN must start with urn:li:.';
  }
  return undefined;
}

/** What a restore covers, in words, for its confirmation. */
export function restoreScope(request: RestoreRequest): string {
  const parts: string[] = [];
  if (request.urn.trim() !== '') parts.push(`the entity ${request.urn.trim()}`);
  if (request.urnLike.trim() !== '') parts.push(`URNs matching ${request.urnLike.trim()}`);
  if (request.aspect.trim() !== '') parts.push(`the aspect ${request.aspect.trim()}`);
  return parts.length === 0 ? 'every stored row' : parts.join(', ');
}
