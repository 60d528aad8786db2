/**
 * The operations' answers in DataHub's words and shapes: the truncation summary, the task status as DataHub serializes
 * it, the task parameters' checks, and the restore report. Pure.
 */
import { BadRequestError } from '@strata/model';

/** What a truncation would remove, and from how many points. */
export interface TruncationCounts {
  readonly toDelete: number;
  readonly total: number;
}

export interface TruncationFlags {
  readonly dryRun: boolean;
  readonly forceDeleteByQuery?: boolean | undefined;
  readonly forceReindex?: boolean | undefined;
}

/**
 * DataHub's summary of a truncation: `Delete N out of M rows (P%). ` then the method DataHub chooses — reindexing the
 * rest when forced or when more than half goes, else a delete-by-query — then, for a dry run, how to execute it.
 * (Strata removes the points in batches either way; the sentence keeps DataHub's wording.) An empty index is 0.00%,
 * where DataHub prints `NaN%`.
 */
export function truncationSummary({ toDelete, total }: TruncationCounts, flags: TruncationFlags): string {
  const percent = total === 0 ? 0 : (100 * toDelete) / total;
  let text = `Delete ${toDelete} out of ${total} rows (${percent.toFixed(2)}%). `;
  const reindex =
    flags.forceDeleteByQuery !== true && (flags.forceReindex === true || toDelete > Math.floor(total / 2));
  text += reindex ? 'Reindexing the aspect without the deleted records. ' : 'Issuing a delete by query request. ';
  if (flags.dryRun) text += 'This was a dry run. Run with dryRun = false to execute.';
  return text;
}

/** Both force flags given with the same value: DataHub's complaint, a 400 here. */
export function checkForceFlags(flags: TruncationFlags): void {
  if (flags.forceDeleteByQuery !== undefined && flags.forceDeleteByQuery === flags.forceReindex) {
    throw new BadRequestError('please only set forceReindex OR forceDeleteByQuery flags');
  }
}

/** A task's id as the operations take it: `<nodeId>:<number>`. */
export interface TaskRef {
  readonly nodeId: string;
  readonly number: number;
}

const TASK_FORM = /^[a-zA-Z0-9\-_]+:[0-9]+$/;

/**
 * The task getEsTaskStatus is asked about, from either form of its parameters, with DataHub's 400s: neither form,
 * two forms that disagree, or a composite id that is not `nodeId:taskId` (with a number that is not 0).
 */
export function taskOf(input: {
  nodeId?: string | undefined;
  taskId?: number | undefined;
  task?: string | undefined;
}): TaskRef {
  const byParts = input.nodeId !== undefined && (input.taskId ?? 0) > 0;
  if (input.task === undefined && !byParts) {
    throw new BadRequestError('Please specify either Node ID + task ID OR composite task parameters');
  }
  if (input.task !== undefined && byParts && input.task !== `${input.nodeId ?? ''}:${input.taskId ?? 0}`) {
    throw new BadRequestError('Please specify only one of Node ID + task ID OR composite task parameters');
  }
  if (byParts) return { nodeId: input.nodeId ?? '', number: input.taskId ?? 0 };
  const task = input.task ?? '';
  const number = Number(task.slice(task.lastIndexOf(':') + 1));
  if (!TASK_FORM.test(task) || !Number.isSafeInteger(number) || number === 0) {
    throw new BadRequestError(
      `Task should be in the form nodeId:taskId e.g. aB1cdEf2GHIJKLMnoPQr3S:123456 (got ${task})`,
    );
  }
  return { nodeId: task.slice(0, task.lastIndexOf(':')), number };
}

/** A task's status as the owner of its index reports it. */
export interface TaskReport {
  readonly completed: boolean;
  readonly runTimeNanos: number;
  readonly status: Readonly<Record<string, unknown>>;
  readonly error?: { readonly type: string; readonly reason: string } | undefined;
}

/**
 * getEsTaskStatus' value: a JSON object as a string, as DataHub answers it — `completed`, `taskId`, `runTimeNanos`, and
 * `status` itself a string holding the counters' JSON; a task that failed adds `error` (`<type>: <reason>`), which
 * DataHub leaves out. An unknown task is `{"error": "Could not get task status for <node>:<id>"}`.
 */
export function taskStatusValue(task: TaskRef, report: TaskReport | undefined): string {
  const id = `${task.nodeId}:${task.number}`;
  if (report === undefined) return JSON.stringify({ error: `Could not get task status for ${id}` });
  return JSON.stringify({
    completed: report.completed,
    taskId: id,
    runTimeNanos: report.runTimeNanos,
    status: JSON.stringify(report.status),
    ...(report.error === undefined ? {} : { error: `${report.error.type}: ${report.error.reason}` }),
  });
}

/** What restoreIndices was asked. */
export interface RestoreArgs {
  readonly urn?: string | undefined;
  readonly aspect?: string | undefined;
  readonly urnLike?: string | undefined;
  readonly start: number;
  readonly batchSize: number;
  readonly gePitEpochMs?: number | undefined;
  readonly lePitEpochMs?: number | undefined;
}

/** What the writer did for it. */
export interface RestoreOutcome {
  readonly rows: number;
  readonly ignored: number;
  readonly last: { readonly urn: string; readonly aspect: string } | undefined;
  readonly exhausted: boolean;
  readonly readMs: number;
  readonly publishMs: number;
  readonly tookMs: number;
}

/** The write-time bounds a restore was given, in the place DataHub's arguments print them; nothing without them. */
function pitText(args: RestoreArgs): string {
  const bound = (name: string, value: number | undefined) => (value === undefined ? '' : `${name}=${value}, `);
  return bound('gePitEpochMs', args.gePitEpochMs) + bound('lePitEpochMs', args.lePitEpochMs);
}

/**
 * restoreIndices' value, in the form of DataHub's (`{args=RestoreIndicesArgs(…), result=RestoreIndicesResult(…)}`),
 * with what Strata measures: rows restated (`rowsMigrated`), rows of models no longer loaded (`ignored`), the time
 * reading the store and appending the change logs (`timeSqlQueryMs`), publishing them (`sendMessageMs`) and in all
 * (`timeTakenMs`), the last row, and where to continue: `nextStart` (the `start` of the next call) and `complete`
 * (no row is left after this call's).
 */
export function restoreValue(args: RestoreArgs, outcome: RestoreOutcome): string {
  const text = (value: string | undefined) => value ?? 'null';
  return (
    `{args=RestoreIndicesArgs(start=${args.start}, batchSize=${args.batchSize}, ${pitText(args)}` +
    `aspectName=${text(args.aspect)}, ` +
    `urn=${text(args.urn)}, urnLike=${text(args.urnLike)}), ` +
    `result=RestoreIndicesResult(ignored=${outcome.ignored}, rowsMigrated=${outcome.rows - outcome.ignored}, ` +
    `timeSqlQueryMs=${outcome.readMs}, sendMessageMs=${outcome.publishMs}, timeTakenMs=${outcome.tookMs}, ` +
    `lastUrn=${outcome.last?.urn ?? ''}, lastAspect=${outcome.last?.aspect ?? ''}, ` +
    `nextStart=${args.start + outcome.rows}, complete=${outcome.exhausted})}`
  );
}
