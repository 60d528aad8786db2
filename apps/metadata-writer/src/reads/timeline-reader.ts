import type { EntityRegistry } from '@strata/model';
import type { AspectStore, StoredAspect } from '@strata/store';
import { TimeSlice } from '@strata/timing';
import type { ChangeCategory, ChangeTransaction } from '../domain/timeline/change-event';
import {
  assembleTimeline,
  diffVersions,
  rowsInWindow,
  type AspectHistory,
  type AspectVersion,
  type ReadVersionRow,
  type VersionDiff,
} from '../domain/timeline/timeline';
import { aspectsFeeding, type FeedingAspect } from '../domain/timeline/timeline-registry';
import { EntityReader } from './entity-reader';

/** DataHub's default window when no start is given: the week before its end. */
export const DEFAULT_LOOKBACK_MILLIS = 7 * 24 * 60 * 60 * 1000;

/** How much one timeline request may read of the store. */
export interface TimelineLimits {
  /** The most aspect versions one request reads (beyond the latest values, read at once). */
  readonly maxVersionReads: number;
  /** The most versions of one aspect read in one round of reads. */
  readonly pageSize: number;
}

/** 5,000 versions per request, read 25 per aspect at a time. */
export const DEFAULT_TIMELINE_LIMITS: TimelineLimits = { maxVersionReads: 5000, pageSize: 25 };

export interface TimelineQuery {
  /** The entity's URN, as the request named it. */
  readonly urn: string;
  readonly categories: readonly ChangeCategory[];
  /** Epoch milliseconds; -1 (the default) for a week before the end. */
  readonly startTime: number;
  /** Epoch milliseconds, exclusive; 0 (the default) for now. */
  readonly endTime: number;
  /** Include each transaction's raw diff. */
  readonly raw: boolean;
}

export interface TimelineResult {
  readonly transactions: ChangeTransaction[];
  /**
   * Set when the versions in the window were more than one request may read: the timeline then covers the window from
   * this instant (epoch milliseconds) on, the newest versions being the ones read.
   */
  readonly coveredFrom?: number;
}

/**
 * Reads an entity's timeline from the primary store. The store keeps each aspect's versions by ordinal, each with when
 * it was written; versions of one aspect are written in time order, so the versions of a window are found by walking
 * each aspect back from its latest until a version written before the window (or the first version) is read.
 *
 * Bounded: versions are read in rounds, at most `pageSize` of each aspect per round, giving the event loop a turn
 * between rounds, and at most `maxVersionReads` in all. When the window holds more, the walk stops and the window is
 * narrowed to start just after the oldest version read of the aspect that reached back least far, so that every aspect
 * is complete over what is answered; the result says from when it is complete ({@link TimelineResult.coveredFrom}).
 */
export class TimelineReader {
  private readonly entities: EntityReader;

  constructor(
    private readonly store: AspectStore,
    registry: EntityRegistry,
    private readonly now: () => number,
    private readonly limits: TimelineLimits = DEFAULT_TIMELINE_LIMITS,
  ) {
    this.entities = new EntityReader(store, registry);
  }

  async read(query: TimelineQuery): Promise<TimelineResult> {
    const { urn, entity } = this.entities.resolve(query.urn);
    const end = query.endTime === 0 ? this.now() : query.endTime;
    const start = query.startTime === -1 ? end - DEFAULT_LOOKBACK_MILLIS : query.startTime;
    const declared = entity.aspects.map((spec) => spec.name);
    const versioned = entity.aspects.filter((spec) => spec.kind === 'versioned').map((spec) => spec.name);
    const latest = await this.store.getEntity(urn.toString(), versioned);
    const feeding = new Map(
      aspectsFeeding(entity.name, declared, query.categories).map((aspect) => [aspect.aspect, aspect]),
    );
    const walks = latest
      .sort((left, right) => declared.indexOf(left.aspect) - declared.indexOf(right.aspect))
      .map(
        (row) =>
          new AspectWalk(row, feeding.get(row.aspect), { entityUrn: urn.toString(), raw: query.raw, start, end }),
      );

    const slice = new TimeSlice();
    let budget = this.limits.maxVersionReads;
    let exhausted = false;
    for (let pending = walks.filter((walk) => !walk.done); pending.length > 0;) {
      const planned = pending.map((walk) => {
        const count = Math.min(this.limits.pageSize, walk.next, Math.max(budget, 0));
        budget -= count;
        return { walk, ordinals: Array.from({ length: count }, (_, index) => walk.next - index) };
      });
      if (planned.every(({ ordinals }) => ordinals.length === 0)) {
        exhausted = true;
        break;
      }
      const pages = await Promise.all(
        planned.map(({ walk, ordinals }) =>
          Promise.all(ordinals.map((ordinal) => this.store.getVersion(urn.toString(), walk.aspect, ordinal))),
        ),
      );
      for (const [index, { walk }] of planned.entries()) {
        for (const row of pages[index] ?? []) {
          if (walk.done) break;
          walk.accept(row);
          await slice.pause();
        }
      }
      pending = walks.filter((walk) => !walk.done);
    }

    // A walk cut short reaches back to its oldest version read: the answer starts just after the latest of those.
    const unfinished = walks.filter((walk) => !walk.done);
    const from = exhausted ? Math.max(start, ...unfinished.map((walk) => walk.oldestRead + 1)) : start;
    const histories: AspectHistory[] = walks.map((walk) => walk.history({ start: from, end }));
    return { transactions: assembleTimeline(histories), ...(exhausted ? { coveredFrom: from } : {}) };
  }
}

/**
 * One aspect walked back from its latest version: the versions read (newest first), and the comparison of each version
 * written in the window with the one before it, for an aspect feeding the requested categories.
 */
class AspectWalk {
  readonly aspect: string;
  /** The next ordinal to read (0: none left). */
  next: number;
  done = false;
  private readonly read: ReadVersionRow[] = [];
  private readonly diffs: VersionDiff[] = [];
  /** The oldest version read so far, which the next one read is compared with. */
  private newer: AspectVersion;

  constructor(
    latest: StoredAspect,
    private readonly feeding: FeedingAspect | undefined,
    private readonly options: {
      readonly entityUrn: string;
      readonly raw: boolean;
      readonly start: number;
      readonly end: number;
    },
  ) {
    this.aspect = latest.aspect;
    this.newer = latest;
    this.next = latest.version - 1;
    this.read.push({ version: latest.version, createdOn: latest.createdOn, latest: true });
    // Written before the window: nothing of it is in the window, and it is what the window starts from.
    if (latest.createdOn < options.start) this.done = true;
    else if (this.next === 0) this.accept(undefined);
  }

  /** When the oldest version read was written. */
  get oldestRead(): number {
    return this.newer.createdOn;
  }

  /**
   * Takes the version before the oldest read: `undefined` when the oldest read is the first version (it is then
   * compared with nothing), or when it is missing (removed since the walk began: the walk ends there).
   */
  accept(row: StoredAspect | undefined): void {
    const first = row === undefined && this.next === 0;
    if (row !== undefined || first) this.compare(row);
    if (row === undefined) {
      this.done = true;
      return;
    }
    this.read.push({ version: row.version, createdOn: row.createdOn, latest: false });
    this.newer = row;
    this.next = row.version - 1;
    if (row.createdOn < this.options.start) this.done = true;
    else if (this.next === 0) this.accept(undefined);
  }

  history(window: { readonly start: number; readonly end: number }): AspectHistory {
    return {
      aspect: this.aspect,
      rows: rowsInWindow(this.read, window),
      diffs: this.diffs.filter((diff) => diff.timestamp >= window.start),
    };
  }

  /** Compares the oldest version read, when written in the window, with the one before it. */
  private compare(previous: StoredAspect | undefined): void {
    const newer = this.newer;
    if (this.feeding === undefined || newer.createdOn < this.options.start || newer.createdOn >= this.options.end) {
      return;
    }
    this.diffs.push(
      diffVersions(this.feeding, previous?.value, newer, { entityUrn: this.options.entityUrn, raw: this.options.raw }),
    );
  }
}
