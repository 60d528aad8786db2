/**
 * Side-by-side differences between two JSON values (two versions of an aspect), as rows a table shows: each value is
 * printed canonically — object keys sorted at every depth, two-space indentation — so that keys written in another
 * order are no change, then the two printouts are compared line by line. A run of removed lines followed by a run of
 * added ones is paired row by row (a changed line shows its old text on the left and its new text on the right); the
 * rest of the lines stand alone on their side. Pure functions (unit-tested in diff.spec.ts).
 */
import { diffArrays } from 'diff';

/** What happened to a row's line(s): kept, only on the left, only on the right, or replaced by the right's. */
export type DiffKind = 'unchanged' | 'removed' | 'added' | 'changed';

/** One line of one side: its number in that side's printout (from 1) and its text. */
export interface DiffLine {
  readonly number: number;
  readonly text: string;
}

/** One row of the side-by-side view. */
export interface DiffRow {
  readonly kind: DiffKind;
  readonly left?: DiffLine;
  readonly right?: DiffLine;
}

/** Unchanged rows left out of the view (between changes far apart), counted. */
export interface FoldedRows {
  readonly kind: 'folded';
  readonly count: number;
  /** The first line number left out on each side. */
  readonly leftFrom: number;
  readonly rightFrom: number;
}

/** A value with every object's keys in sorted order, at every depth (arrays keep their order: it means something). */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((key) => [key, sortKeys(record[key])]),
    );
  }
  return value;
}

/** A value's canonical printout (no lines for an absent value). */
export function canonicalLines(value: unknown): string[] {
  if (value === undefined) return [];
  return JSON.stringify(sortKeys(value), null, 2).split('\n');
}

/** A line without the comma that ends it: adding a key after a line changes its comma only, which is no change. */
function withoutTrailingComma(line: string): string {
  return line.endsWith(',') ? line.slice(0, -1) : line;
}

/** The side-by-side rows of two lists of lines. */
export function diffLineRows(left: readonly string[], right: readonly string[]): DiffRow[] {
  const changes = diffArrays([...left], [...right], {
    comparator: (a: string, b: string) => withoutTrailingComma(a) === withoutTrailingComma(b),
  });
  const rows: DiffRow[] = [];
  let leftIndex = 0;
  let rightIndex = 0;
  const leftLine = (index: number): DiffLine => ({ number: index + 1, text: left[index] ?? '' });
  const rightLine = (index: number): DiffLine => ({ number: index + 1, text: right[index] ?? '' });
  for (let at = 0; at < changes.length; at += 1) {
    const change = changes[at];
    if (change === undefined) continue;
    if (!change.added && !change.removed) {
      for (let offset = 0; offset < change.count; offset += 1) {
        rows.push({ kind: 'unchanged', left: leftLine(leftIndex), right: rightLine(rightIndex) });
        leftIndex += 1;
        rightIndex += 1;
      }
      continue;
    }
    // A removal and the addition right after it (in either order) are one replacement, paired line by line.
    const next = changes[at + 1];
    const removedCount = change.removed ? change.count : next?.removed === true ? next.count : 0;
    const addedCount = change.added ? change.count : next?.added === true ? next.count : 0;
    if ((change.removed && next?.added === true) || (change.added && next?.removed === true)) at += 1;
    const paired = Math.min(removedCount, addedCount);
    for (let offset = 0; offset < Math.max(removedCount, addedCount); offset += 1) {
      if (offset < paired) {
        rows.push({ kind: 'changed', left: leftLine(leftIndex), right: rightLine(rightIndex) });
        leftIndex += 1;
        rightIndex += 1;
      } else if (offset < removedCount) {
        rows.push({ kind: 'removed', left: leftLine(leftIndex) });
        leftIndex += 1;
      } else {
        rows.push({ kind: 'added', right: rightLine(rightIndex) });
        rightIndex += 1;
      }
    }
  }
  return rows;
}

/** The side-by-side rows of two JSON values, compared canonically (key order is no change). */
export function diffJson(left: unknown, right: unknown): DiffRow[] {
  return diffLineRows(canonicalLines(left), canonicalLines(right));
}

/** How many lines each side lost and gained (a changed row counts on both sides). */
export function diffCounts(rows: readonly DiffRow[]): { readonly removed: number; readonly added: number } {
  let removed = 0;
  let added = 0;
  for (const row of rows) {
    if (row.kind === 'removed' || row.kind === 'changed') removed += 1;
    if (row.kind === 'added' || row.kind === 'changed') added += 1;
  }
  return { removed, added };
}

/**
 * The rows with long unchanged runs folded: `context` unchanged rows stay around each change, the rest of a run
 * becomes one {@link FoldedRows}. A run shorter than a fold is worth is kept whole.
 */
export function foldUnchanged(rows: readonly DiffRow[], context = 3): (DiffRow | FoldedRows)[] {
  const result: (DiffRow | FoldedRows)[] = [];
  let index = 0;
  while (index < rows.length) {
    const row = rows[index];
    if (row === undefined) break;
    if (row.kind !== 'unchanged') {
      result.push(row);
      index += 1;
      continue;
    }
    let end = index;
    while (end < rows.length && rows[end]?.kind === 'unchanged') end += 1;
    const keepBefore = index === 0 ? 0 : context;
    const keepAfter = end === rows.length ? 0 : context;
    const hidden = end - index - keepBefore - keepAfter;
    if (hidden <= 1) {
      for (let at = index; at < end; at += 1) result.push(rows[at] as DiffRow);
    } else {
      for (let at = index; at < index + keepBefore; at += 1) result.push(rows[at] as DiffRow);
      const first = rows[index + keepBefore] as DiffRow;
      result.push({
        kind: 'folded',
        count: hidden,
        leftFrom: first.left?.number ?? 0,
        rightFrom: first.right?.number ?? 0,
      });
      for (let at = end - keepAfter; at < end; at += 1) result.push(rows[at] as DiffRow);
    }
    index = end;
  }
  return result;
}
