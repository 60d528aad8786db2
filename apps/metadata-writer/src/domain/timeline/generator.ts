import type { JsonObject } from '@strata/model';
import type { AuditStamp, ChangeCategory, ChangeEvent } from './change-event';
import { compareText } from './json-values';

/** What a generator knows of the change besides the two values. */
export interface GeneratorContext {
  /** The URN of the entity whose aspect changed. */
  readonly entityUrn: string;
  /** Who wrote the newer version, and when. */
  readonly stamp: AuditStamp;
}

/**
 * Turns two consecutive versions of one aspect into the semantic changes of the requested categories (DataHub's
 * `EntityChangeEventGenerator`), in the order of `categories`. `previous` is undefined when `current` is the aspect's
 * first version. A generator ignores the categories it does not describe, and reads values defensively (see
 * `json-values.ts`): it never throws for a stored value.
 */
export type ChangeEventGenerator = (
  categories: readonly ChangeCategory[],
  previous: JsonObject | undefined,
  current: JsonObject,
  context: GeneratorContext,
) => ChangeEvent[];

/**
 * A generator of one category: the events of `category` when it is requested, nothing otherwise (most aspects describe
 * one category).
 */
export function forCategory(
  category: ChangeCategory,
  events: (previous: JsonObject | undefined, current: JsonObject, context: GeneratorContext) => ChangeEvent[],
): ChangeEventGenerator {
  return (categories, previous, current, context) =>
    categories.includes(category) ? events(previous, current, context) : [];
}

/**
 * DataHub's sorted merge of two collections keyed by text: both sorted by key (stably), then walked together; an item
 * only in `base` was removed, one only in `target` added, one in both (same key) is handed to `both`. Duplicated keys
 * pair up one by one, so a surplus duplicate reads as removed or added.
 */
export function sortedMerge<T>(
  base: readonly T[],
  target: readonly T[],
  key: (item: T) => string,
  on: {
    readonly removed: (item: T) => ChangeEvent | undefined;
    readonly added: (item: T) => ChangeEvent | undefined;
    readonly both?: (before: T, after: T) => ChangeEvent | undefined;
  },
): ChangeEvent[] {
  const byKey = (left: T, right: T) => compareText(key(left), key(right));
  const before = [...base].sort(byKey);
  const after = [...target].sort(byKey);
  const events: ChangeEvent[] = [];
  const push = (event: ChangeEvent | undefined) => {
    if (event !== undefined) events.push(event);
  };
  let i = 0;
  let j = 0;
  while (i < before.length && j < after.length) {
    const left = before[i] as T;
    const right = after[j] as T;
    const comparison = byKey(left, right);
    if (comparison === 0) {
      if (on.both) push(on.both(left, right));
      i++;
      j++;
    } else if (comparison < 0) {
      push(on.removed(left));
      i++;
    } else {
      push(on.added(right));
      j++;
    }
  }
  for (; i < before.length; i++) push(on.removed(before[i] as T));
  for (; j < after.length; j++) push(on.added(after[j] as T));
  return events;
}
