import { jsonEqual } from '../json-equal';
import type { JsonPatchOperation } from './change-event';

/**
 * Arrays whose differing middles hold more element pairs than this are compared position by position rather than by
 * longest common subsequence, so one raw diff of two large arrays stays linear in their size.
 */
const MAX_LCS_CELLS = 250_000;

/**
 * The raw diff between two JSON documents, as an RFC 6902 patch that turns `from` into `to` when applied in order:
 * objects are compared key by key (`remove` for keys that went, `add` for keys that came), arrays by their longest
 * common subsequence (an element changed in place becomes a change at its index: nested operations for an object,
 * `replace` otherwise), and anything else that differs is replaced. Equal documents give `[]`. Keys are escaped in
 * paths as RFC 6901 says (`~0`, `~1`).
 */
export function jsonDiff(from: unknown, to: unknown): JsonPatchOperation[] {
  const operations: JsonPatchOperation[] = [];
  diffValue('', from, to, operations);
  return operations;
}

function diffValue(path: string, from: unknown, to: unknown, operations: JsonPatchOperation[]): void {
  if (jsonEqual(from, to)) return;
  if (isObject(from) && isObject(to)) {
    diffObject(path, from, to, operations);
  } else if (Array.isArray(from) && Array.isArray(to)) {
    diffArray(path, from as unknown[], to as unknown[], operations);
  } else {
    operations.push({ op: 'replace', path, value: to });
  }
}

function diffObject(
  path: string,
  from: Record<string, unknown>,
  to: Record<string, unknown>,
  operations: JsonPatchOperation[],
): void {
  for (const key of Object.keys(from)) {
    if (from[key] === undefined) continue;
    const child = `${path}/${escapePointer(key)}`;
    if (Object.hasOwn(to, key) && to[key] !== undefined) diffValue(child, from[key], to[key], operations);
    else operations.push({ op: 'remove', path: child });
  }
  for (const key of Object.keys(to)) {
    if (to[key] === undefined || (Object.hasOwn(from, key) && from[key] !== undefined)) continue;
    operations.push({ op: 'add', path: `${path}/${escapePointer(key)}`, value: to[key] });
  }
}

/**
 * Arrays: the common head and tail are left alone; the middle is walked from its end, so that every operation's index
 * is valid when the operations are applied in the order given (what lies before the position is still the source's,
 * what lies after it is already the target's).
 */
function diffArray(path: string, from: unknown[], to: unknown[], operations: JsonPatchOperation[]): void {
  let head = 0;
  while (head < from.length && head < to.length && jsonEqual(from[head], to[head])) head++;
  let tail = 0;
  while (
    tail < from.length - head &&
    tail < to.length - head &&
    jsonEqual(from[from.length - 1 - tail], to[to.length - 1 - tail])
  ) {
    tail++;
  }
  const source = from.slice(head, from.length - tail);
  const target = to.slice(head, to.length - tail);
  if (source.length * target.length > MAX_LCS_CELLS) {
    diffByPosition(path, head, source, target, operations);
    return;
  }
  const rows = source.length + 1;
  const columns = target.length + 1;
  // lengths[i * columns + j]: the longest common subsequence of source[0, i) and target[0, j).
  const lengths = new Uint32Array(rows * columns);
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < columns; j++) {
      lengths[i * columns + j] = jsonEqual(source[i - 1], target[j - 1])
        ? (lengths[(i - 1) * columns + j - 1] ?? 0) + 1
        : Math.max(lengths[i * columns + j - 1] ?? 0, lengths[(i - 1) * columns + j] ?? 0);
    }
  }
  let i = source.length;
  let j = target.length;
  while (i > 0 || j > 0) {
    if (i === 0) {
      j--;
      operations.push({ op: 'add', path: `${path}/${head}`, value: target[j] });
    } else if (j === 0) {
      i--;
      operations.push({ op: 'remove', path: `${path}/${head + i}` });
    } else if (jsonEqual(source[i - 1], target[j - 1])) {
      i--;
      j--;
    } else {
      const withoutTarget = lengths[i * columns + j - 1] ?? 0;
      const withoutSource = lengths[(i - 1) * columns + j] ?? 0;
      if (withoutTarget > withoutSource) {
        j--;
        operations.push({ op: 'add', path: `${path}/${head + i}`, value: target[j] });
      } else if (withoutTarget < withoutSource) {
        i--;
        operations.push({ op: 'remove', path: `${path}/${head + i}` });
      } else {
        // Neither side is better kept: the element changed in place.
        i--;
        j--;
        diffValue(`${path}/${head + i}`, source[i], target[j], operations);
      }
    }
  }
}

/** Large arrays: the surplus removed from the end (or added at it), the rest changed in place, index by index. */
function diffByPosition(
  path: string,
  offset: number,
  source: unknown[],
  target: unknown[],
  operations: JsonPatchOperation[],
): void {
  for (let index = source.length - 1; index >= target.length; index--) {
    operations.push({ op: 'remove', path: `${path}/${offset + index}` });
  }
  const shared = Math.min(source.length, target.length);
  for (let index = 0; index < shared; index++) {
    diffValue(`${path}/${offset + index}`, source[index], target[index], operations);
  }
  for (let index = source.length; index < target.length; index++) {
    operations.push({ op: 'add', path: `${path}/${offset + index}`, value: target[index] });
  }
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
