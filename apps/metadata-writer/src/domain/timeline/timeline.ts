import type { JsonObject } from '@strata/model';
import {
  maxSemanticChange,
  type ChangeEvent,
  type ChangeTransaction,
  type JsonPatchOperation,
  type SemanticChangeType,
} from './change-event';
import { compareText } from './json-values';
import { jsonDiff } from './json-patch';
import type { FeedingAspect } from './timeline-registry';

/**
 * DataHub's timeline, computed from an entity's stored aspect versions (pure: the reader hands in what it read).
 *
 * For each aspect, the versions written in the window `[start, end)` are taken, with the version just before the
 * oldest of them (or, when that oldest is the aspect's first version, "nothing": the first version is then compared
 * with an absent value); an aspect with no version in the window keeps only its latest, and yields no change. Each
 * version is compared with the one before it by the aspect's generator, for the requested categories it feeds. The
 * comparisons of every aspect are grouped by the instant of the newer version: each instant with at least one change
 * event is one transaction. Semantic versions count instants in time order: the first instant that any feeding aspect
 * changed (whether or not the change was one of the categories') is `0.0.0`; each later one bumps by the largest
 * change of its events (MAJOR, MINOR, PATCH; NONE and EXCEPTIONAL keep the version).
 */

/** A version of an aspect, as the reader hands it over. */
export interface AspectVersion {
  /** The version's ordinal (1 for the first). */
  readonly version: number;
  readonly value: JsonObject;
  readonly createdOn: number;
  readonly createdBy: string;
}

/** One version in DataHub's terms: its row number (0 for the latest, the ordinal otherwise) and when it was written. */
export interface VersionRow {
  readonly version: number;
  readonly createdOn: number;
}

/** The comparison of an aspect version with the one before it. */
export interface VersionDiff {
  /** When the newer version was written. */
  readonly timestamp: number;
  /** Who wrote it. */
  readonly actor: string;
  /** The change events of the requested categories, in their order. */
  readonly events: readonly ChangeEvent[];
  /** The raw diff, when asked for and when there are events. */
  readonly rawDiff?: readonly JsonPatchOperation[];
}

/** What the timeline knows of one aspect of the entity. */
export interface AspectHistory {
  readonly aspect: string;
  /** The aspect's versions considered (see {@link rowsInWindow}), for the version stamps. */
  readonly rows: readonly VersionRow[];
  /** The comparisons of its versions in the window: only for an aspect feeding the requested categories. */
  readonly diffs: readonly VersionDiff[];
}

/** Compares two consecutive versions of an aspect that feeds the requested categories (`previous`: none). */
export function diffVersions(
  feeding: FeedingAspect,
  previous: JsonObject | undefined,
  current: AspectVersion,
  options: { readonly entityUrn: string; readonly raw: boolean },
): VersionDiff {
  const events = feeding.generator(feeding.categories, previous, current.value, {
    entityUrn: options.entityUrn,
    stamp: { time: current.createdOn, actor: current.createdBy },
  });
  return {
    timestamp: current.createdOn,
    actor: current.createdBy,
    events,
    ...(options.raw && events.length > 0 ? { rawDiff: jsonDiff(previous ?? {}, current.value) } : {}),
  };
}

/** A version the reader read: its ordinal, when it was written, and whether it is the aspect's latest. */
export interface ReadVersionRow {
  readonly version: number;
  readonly createdOn: number;
  readonly latest: boolean;
}

/**
 * DataHub's rows of an aspect for the window `[start, end)`: the versions written in it and the version before the
 * oldest of them (none when that oldest is the first), or the latest alone when none was written in it. `read` holds
 * the versions read, the latest among them; `latest` is the latest (always read).
 */
export function rowsInWindow(
  read: readonly ReadVersionRow[],
  window: { readonly start: number; readonly end: number },
): VersionRow[] {
  const row = (version: ReadVersionRow): VersionRow => ({
    version: version.latest ? 0 : version.version,
    createdOn: version.createdOn,
  });
  const inWindow = read.filter((version) => version.createdOn >= window.start && version.createdOn < window.end);
  if (inWindow.length === 0) {
    const latest = read.find((version) => version.latest);
    return latest === undefined ? [] : [row(latest)];
  }
  const oldest = Math.min(...inWindow.map((version) => version.version));
  const before = read.find((version) => version.version === oldest - 1);
  return [...(before === undefined ? [] : [before]), ...inWindow]
    .sort((left, right) => left.createdOn - right.createdOn || left.version - right.version)
    .map(row);
}

/** Assembles the transactions of the entity, oldest first (see the module's description). */
export function assembleTimeline(histories: readonly AspectHistory[]): ChangeTransaction[] {
  const instants = new Map<number, VersionDiff[]>();
  for (const history of histories) {
    for (const diff of history.diffs) {
      const group = instants.get(diff.timestamp) ?? [];
      group.push(diff);
      instants.set(diff.timestamp, group);
    }
  }
  const transactions: ChangeTransaction[] = [];
  let version: SemanticVersion | undefined;
  for (const timestamp of [...instants.keys()].sort((left, right) => left - right)) {
    const changed = (instants.get(timestamp) ?? []).filter((diff) => diff.events.length > 0);
    const highest = changed.reduce<SemanticChangeType>(
      (largest, diff) =>
        diff.events.reduce((max, event) => maxSemanticChange(max, event.semVerChange ?? 'NONE'), largest),
      'NONE',
    );
    version = version === undefined ? { major: 0, minor: 0, patch: 0 } : bump(version, highest);
    const first = changed[0];
    if (first === undefined) continue;
    transactions.push({
      timestamp,
      actor: first.actor,
      semVer: `${version.major}.${version.minor}.${version.patch}-computed`,
      semVerChange: highest,
      changeEvents: changed.flatMap((diff) => diff.events),
      ...(first.rawDiff === undefined ? {} : { rawDiff: first.rawDiff }),
      versionStamp: versionStampAt(histories, timestamp),
    });
  }
  return transactions;
}

interface SemanticVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

function bump(version: SemanticVersion, change: SemanticChangeType): SemanticVersion {
  switch (change) {
    case 'MAJOR':
      return { major: version.major + 1, minor: 0, patch: 0 };
    case 'MINOR':
      return { major: version.major, minor: version.minor + 1, patch: 0 };
    case 'PATCH':
      return { ...version, patch: version.patch + 1 };
    default:
      return version;
  }
}

/**
 * `aspect:version;…` in aspect-name order: for each aspect, the row written at `timestamp` (the first, if several), or
 * else the last one written before it; aspects with neither are left out.
 */
export function versionStampAt(histories: readonly AspectHistory[], timestamp: number): string {
  const entries: [string, number][] = [];
  for (const history of histories) {
    let match: VersionRow | undefined;
    for (const row of history.rows) {
      if (row.createdOn > timestamp) break;
      match = row;
      if (row.createdOn === timestamp) break;
    }
    if (match !== undefined) entries.push([history.aspect, match.version]);
  }
  return entries
    .sort(([left], [right]) => compareText(left, right))
    .map(([aspect, version]) => `${aspect}:${version}`)
    .join(';');
}
