/**
 * Ingestion runs as the console shows them: the `/runs` list and describe answers, a run's summary (entities, aspects
 * and entity types it wrote), the state of the runs pages in their URL, and a rollback's dry run shaped into the
 * preview a person reads before confirming (what would be removed, hidden or restored). Pure functions
 * (unit-tested in admin-runs.spec.ts).
 */
import { entityTypeOfUrn } from './urn';

/** One run of `POST /runs?action=list` (DataHub's `IngestionRunSummary`). */
export interface RunSummary {
  readonly runId: string;
  /** The latest aspect values it wrote last. */
  readonly rows: number;
  /** The newest `lastObserved` among them (epoch ms). */
  readonly timestamp: number;
}

/** One row of `POST /runs?action=describe` (DataHub's `AspectRowSummary`). */
export interface RunRow {
  readonly runId: string;
  readonly urn: string;
  readonly aspectName: string;
  readonly version?: number;
  readonly timestamp: number;
  readonly keyAspect: boolean;
}

/** Rows of a run's rollback answer (`aspectRowSummaries`). */
export interface RollbackRow {
  readonly runId: string;
  readonly urn: string;
  readonly aspectName: string;
  readonly timestamp: number;
  readonly keyAspect: boolean;
}

/** DataHub's `RollbackResponse` as Strata answers it for a run. */
export interface RollbackResponse {
  readonly entitiesAffected: number;
  readonly aspectsReverted?: number;
  readonly aspectsAffected?: number;
  readonly entitiesDeleted: number;
  readonly unsafeEntitiesCount?: number;
  readonly unsafeEntities?: readonly { readonly urn: string }[];
  readonly aspectRowSummaries: readonly RollbackRow[];
}

/** Runs shown per page, and rows of a run per page. */
export const RUNS_PAGE_SIZE = 20;
export const RUN_ROWS_PAGE_SIZE = 20;
/** The rows a run's summary reads at most (one describe call); beyond, its counts are "at least". */
export const RUN_SUMMARY_ROWS = 1000;
/** The rows a rollback answer lists at most (DataHub's limit). */
export const ROLLBACK_LISTED_ROWS = 100;

/** The reserved run id of writes without one, which cannot be rolled back. */
export const UNNAMED_RUN_ID = 'no-run-id-provided';

/**
 * A page of a list the server pages without a total: ask one row more than shown, and the extra row says whether
 * there is a next page.
 */
export function pageOf<T>(
  rows: readonly T[],
  size: number,
): { readonly rows: readonly T[]; readonly hasMore: boolean } {
  return { rows: rows.slice(0, size), hasMore: rows.length > size };
}

/** A non-negative whole number from a URL parameter, or the fallback. */
export function offsetParam(value: string | null, fallback = 0): number {
  if (value === null || !/^\d{1,9}$/.test(value)) return fallback;
  return Number(value);
}

/** The state of the runs list in its URL: the first run shown, and whether soft-deleted entities' rows count. */
export interface RunsListState {
  readonly start: number;
  readonly includeSoft: boolean;
}

export function runsListStateOf(params: URLSearchParams): RunsListState {
  return { start: offsetParam(params.get('start')), includeSoft: params.get('soft') === '1' };
}

export function runsListParams(state: RunsListState): URLSearchParams {
  const params = new URLSearchParams();
  if (state.start > 0) params.set('start', String(state.start));
  if (state.includeSoft) params.set('soft', '1');
  return params;
}

/** How a rollback treats what the run created: hidden (`status.removed`, DataHub's "safe") or deleted for good. */
export type RollbackMode = 'soft' | 'hard';

/** The state of a run's page in its URL: the first row shown and the rollback mode chosen. */
export interface RunPageState {
  readonly start: number;
  readonly mode: RollbackMode;
}

export function runPageStateOf(params: URLSearchParams): RunPageState {
  return { start: offsetParam(params.get('start')), mode: params.get('mode') === 'hard' ? 'hard' : 'soft' };
}

export function runPageParams(state: RunPageState): URLSearchParams {
  const params = new URLSearchParams();
  if (state.start > 0) params.set('start', String(state.start));
  if (state.mode === 'hard') params.set('mode', 'hard');
  return params;
}

/** The console path of a run's page. */
export function runPath(runId: string): string {
  return `/admin/runs/${encodeURIComponent(runId)}`;
}

/** The body of a rollback call: DataHub's `safe` says soft or hard; `dryRun` only previews. */
export function rollbackBody(runId: string, mode: RollbackMode, dryRun: boolean) {
  return { runId, dryRun, safe: mode === 'soft' };
}

/** A count with its noun, singular or plural (`1 entity`, `3 entities`). */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? singular : plural}`;
}

/** What a run wrote, summed up from its rows. */
export interface RunContents {
  /** Rows read; when `complete` is false the run holds more than these. */
  readonly rows: number;
  readonly complete: boolean;
  readonly entities: number;
  /** Entities whose key the run wrote: the entities it created. */
  readonly createdEntities: number;
  /** Per entity type, how many entities, most first. */
  readonly entityTypes: readonly { readonly type: string; readonly entities: number }[];
  /** Per aspect name, how many rows, most first. */
  readonly aspects: readonly { readonly aspect: string; readonly rows: number }[];
  /** The newest `lastObserved` among the rows. */
  readonly newest: number | undefined;
  readonly oldest: number | undefined;
}

/** Sums up a run's rows (as many as were read: `limit` rows read means there may be more). */
export function summarizeRun(rows: readonly RunRow[], limit: number): RunContents {
  const complete = rows.length < limit;
  const shown = rows.slice(0, limit);
  const entities = new Set<string>();
  const created = new Set<string>();
  const typeEntities = new Map<string, Set<string>>();
  const aspects = new Map<string, number>();
  let newest: number | undefined;
  let oldest: number | undefined;
  for (const row of shown) {
    entities.add(row.urn);
    if (row.keyAspect) created.add(row.urn);
    const type = entityTypeOfUrn(row.urn) ?? 'unknown';
    const set = typeEntities.get(type) ?? new Set<string>();
    set.add(row.urn);
    typeEntities.set(type, set);
    aspects.set(row.aspectName, (aspects.get(row.aspectName) ?? 0) + 1);
    if (row.timestamp > 0) {
      newest = newest === undefined ? row.timestamp : Math.max(newest, row.timestamp);
      oldest = oldest === undefined ? row.timestamp : Math.min(oldest, row.timestamp);
    }
  }
  return {
    rows: shown.length,
    complete,
    entities: entities.size,
    createdEntities: created.size,
    entityTypes: [...typeEntities]
      .map(([type, urns]) => ({ type, entities: urns.size }))
      .sort((a, b) => b.entities - a.entities || a.type.localeCompare(b.type)),
    aspects: [...aspects]
      .map(([aspect, count]) => ({ aspect, rows: count }))
      .sort((a, b) => b.rows - a.rows || a.aspect.localeCompare(b.aspect)),
    newest,
    oldest,
  };
}

/**
 * What a rollback does to one row: an entity the run created is hidden or deleted; a value whose first version the
 * run wrote is removed; a value with earlier versions goes back to the newest one another run wrote (or is removed
 * when every earlier one is this run's too); `reverted` when the version is not known.
 */
export type RowEffect = 'entity-hidden' | 'entity-deleted' | 'removed' | 'restored' | 'reverted';

/** The versions of a run's rows by `<urn> <aspect>`, from its describe rows (to tell removed from restored). */
export function versionsOf(rows: readonly RunRow[]): Map<string, number> {
  const versions = new Map<string, number>();
  for (const row of rows) if (row.version !== undefined) versions.set(`${row.urn} ${row.aspectName}`, row.version);
  return versions;
}

/** One row of the preview or of the outcome. */
export interface PreviewRow {
  readonly urn: string;
  readonly entityType: string;
  readonly aspectName: string;
  readonly timestamp: number;
  readonly effect: RowEffect;
  /** The effect in words. */
  readonly effectLabel: string;
}

/** A rollback's answer, shaped for a person: counts in words, rows with their effect, warnings. */
export interface RollbackPreview {
  readonly mode: RollbackMode;
  readonly dryRun: boolean;
  readonly entitiesAffected: number;
  readonly aspectsReverted: number;
  /** Entities the run created, hidden (soft) or deleted (hard). */
  readonly entitiesRemoved: number;
  /** Values other runs wrote on entities the run created (known after a real rollback only). */
  readonly aspectsAffected: number | undefined;
  readonly unsafeEntities: readonly string[];
  readonly rows: readonly PreviewRow[];
  /** Whether the answer listed only the first rows of more. */
  readonly truncated: boolean;
  /** The statements the preview makes, in order: what goes, what comes back, what is hidden or deleted. */
  readonly statements: readonly string[];
  /** Whether there is anything to roll back at all. */
  readonly empty: boolean;
}

const EFFECT_LABEL: Record<RowEffect, string> = {
  'entity-hidden': 'the entity the run created is hidden (soft-deleted; it can be restored)',
  'entity-deleted': 'the entity the run created is deleted for good, with everything on it',
  removed: 'the run wrote its first version: the aspect is removed',
  restored: 'the newest earlier version another run wrote comes back (removed if every earlier one is this run’s)',
  reverted: 'the value another run wrote before comes back, or the aspect is removed when there is none',
};

/**
 * Shapes a rollback answer (dry run or real) into what the console shows; `versions` (the run's rows' versions, by
 * `<urn> <aspect>`) tells a value removed from one restored.
 */
export function shapeRollback(
  response: RollbackResponse,
  mode: RollbackMode,
  dryRun: boolean,
  versions: ReadonlyMap<string, number> = new Map(),
): RollbackPreview {
  const rows = response.aspectRowSummaries.map((row): PreviewRow => {
    const version = versions.get(`${row.urn} ${row.aspectName}`);
    const effect: RowEffect = row.keyAspect
      ? mode === 'hard'
        ? 'entity-deleted'
        : 'entity-hidden'
      : version === undefined
        ? 'reverted'
        : version <= 1
          ? 'removed'
          : 'restored';
    return {
      urn: row.urn,
      entityType: entityTypeOfUrn(row.urn) ?? 'unknown',
      aspectName: row.aspectName,
      timestamp: row.timestamp,
      effect,
      effectLabel: EFFECT_LABEL[effect],
    };
  });
  const aspectsReverted = response.aspectsReverted ?? rows.length;
  const unsafeEntities = (response.unsafeEntities ?? []).map((entity) => entity.urn);
  const would = (count: number) => (dryRun ? 'would be' : count === 1 ? 'was' : 'were');
  const statements: string[] = [];
  statements.push(
    `${countOf(aspectsReverted, 'aspect value')} of ${countOf(response.entitiesAffected, 'entity', 'entities')} ${would(aspectsReverted)} ` +
      'reverted: each goes back to the value another run wrote before it, or is removed when there is none.',
  );
  if (response.entitiesDeleted > 0) {
    statements.push(
      mode === 'hard'
        ? `${countOf(response.entitiesDeleted, 'entity', 'entities')} the run created ${would(response.entitiesDeleted)} deleted for good, with whatever other runs wrote on them.`
        : `${countOf(response.entitiesDeleted, 'entity', 'entities')} the run created ${would(response.entitiesDeleted)} hidden (soft-deleted); what other runs wrote on them stays, and they can be restored.`,
    );
  }
  if (unsafeEntities.length > 0) {
    statements.push(
      `${countOf(unsafeEntities.length, 'entity', 'entities')} created by this run also ${unsafeEntities.length === 1 ? 'holds' : 'hold'} values other runs wrote: ` +
        (mode === 'hard' ? 'those values go too.' : 'those values are hidden with the entity.'),
    );
  }
  if (dryRun) {
    statements.push(
      'Timeseries values the run wrote (profiles, usage, operations) are removed too; a dry run does not count them.',
    );
  } else if (response.aspectsAffected !== undefined && response.aspectsAffected > 0) {
    statements.push(
      `${countOf(response.aspectsAffected, 'value')} other runs wrote on the removed entities were affected.`,
    );
  }
  return {
    mode,
    dryRun,
    entitiesAffected: response.entitiesAffected,
    aspectsReverted,
    entitiesRemoved: response.entitiesDeleted,
    aspectsAffected: response.aspectsAffected,
    unsafeEntities,
    rows,
    truncated: rows.length >= ROLLBACK_LISTED_ROWS && aspectsReverted > rows.length,
    statements,
    empty: response.entitiesAffected === 0 && aspectsReverted === 0 && response.entitiesDeleted === 0,
  };
}

/** The rows of one page of a list already in memory. */
export function slicePage<T>(rows: readonly T[], start: number, size: number): readonly T[] {
  return rows.slice(start, start + size);
}
