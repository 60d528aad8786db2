import { canonicalLines, diffCounts, diffJson, diffLineRows, foldUnchanged, sortKeys, type DiffRow } from './diff';

/** A row as `kind left|right`, for compact expectations. */
function show(rows: readonly DiffRow[]): string[] {
  return rows.map((row) => `${row.kind} ${row.left?.text ?? '·'} | ${row.right?.text ?? '·'}`);
}

describe('sortKeys and canonicalLines', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(JSON.stringify(sortKeys({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } }))).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('prints with two spaces, one key per line, and nothing for an absent value', () => {
    expect(canonicalLines({ b: 'x', a: 1 })).toEqual(['{', '  "a": 1,', '  "b": "x"', '}']);
    expect(canonicalLines(undefined)).toEqual([]);
    expect(canonicalLines(null)).toEqual(['null']);
  });
});

describe('diffJson', () => {
  it('finds no change when only the key order differs', () => {
    const rows = diffJson(
      { name: 'orders', description: 'x', tags: ['a', 'b'] },
      { tags: ['a', 'b'], description: 'x', name: 'orders' },
    );
    expect(rows.every((row) => row.kind === 'unchanged')).toBe(true);
    expect(diffCounts(rows)).toEqual({ removed: 0, added: 0 });
  });

  it('pairs a changed line side by side, keeping the lines around it aligned', () => {
    const rows = diffJson({ a: 1, b: 'old', c: 3 }, { a: 1, b: 'new', c: 3 });
    expect(show(rows)).toEqual([
      'unchanged { | {',
      'unchanged   "a": 1, |   "a": 1,',
      'changed   "b": "old", |   "b": "new",',
      'unchanged   "c": 3 |   "c": 3',
      'unchanged } | }',
    ]);
    expect(rows[2]?.left?.number).toBe(3);
    expect(rows[2]?.right?.number).toBe(3);
    expect(diffCounts(rows)).toEqual({ removed: 1, added: 1 });
  });

  it('shows an added key on the right only, and the line before it unchanged though its comma changed', () => {
    const rows = diffJson({ a: 1 }, { a: 1, b: 2 });
    expect(show(rows)).toEqual([
      'unchanged { | {',
      'unchanged   "a": 1 |   "a": 1,',
      'added · |   "b": 2',
      'unchanged } | }',
    ]);
    expect(rows[2]?.right?.number).toBe(3);
  });

  it('shows a removed key on the left only, with line numbers of each side', () => {
    const rows = diffJson({ a: 1, b: 2, c: 3 }, { a: 1, c: 3 });
    expect(show(rows)).toEqual([
      'unchanged { | {',
      'unchanged   "a": 1, |   "a": 1,',
      'removed   "b": 2, | ·',
      'unchanged   "c": 3 |   "c": 3',
      'unchanged } | }',
    ]);
    const last = rows[4];
    expect(last?.left?.number).toBe(5);
    expect(last?.right?.number).toBe(4);
  });

  it('pairs a longer removal with a shorter addition, the rest standing alone', () => {
    const rows = diffLineRows(['x', 'a', 'b', 'c', 'y'], ['x', 'd', 'y']);
    expect(show(rows)).toEqual([
      'unchanged x | x',
      'changed a | d',
      'removed b | ·',
      'removed c | ·',
      'unchanged y | y',
    ]);
    expect(diffCounts(rows)).toEqual({ removed: 3, added: 1 });
  });

  it('compares with an absent version: everything added (or removed)', () => {
    expect(diffJson(undefined, { a: 1 }).map((row) => row.kind)).toEqual(['added', 'added', 'added']);
    expect(diffJson({ a: 1 }, undefined).map((row) => row.kind)).toEqual(['removed', 'removed', 'removed']);
  });

  it('keeps array order meaningful', () => {
    const rows = diffJson({ list: ['a', 'b'] }, { list: ['b', 'a'] });
    expect(diffCounts(rows).added).toBeGreaterThan(0);
  });
});

describe('foldUnchanged', () => {
  const lines = Array.from({ length: 20 }, (_, index) => `line ${index + 1}`);

  it('keeps the context around a change and folds the rest of each unchanged run', () => {
    const right = [...lines];
    right[9] = 'changed';
    const folded = foldUnchanged(diffLineRows(lines, right), 2);
    expect(
      folded.map((row) => (row.kind === 'folded' ? `folded ${row.count} from ${row.leftFrom}` : row.kind)),
    ).toEqual(['folded 7 from 1', 'unchanged', 'unchanged', 'changed', 'unchanged', 'unchanged', 'folded 8 from 13']);
  });

  it('folds nothing when the values are equal in a short run, and everything in a long one', () => {
    expect(foldUnchanged(diffLineRows(['a'], ['a']), 3).map((row) => row.kind)).toEqual(['unchanged']);
    expect(foldUnchanged(diffLineRows(lines, lines), 3)).toEqual([
      { kind: 'folded', count: 20, leftFrom: 1, rightFrom: 1 },
    ]);
  });

  it('does not fold a gap of a single row', () => {
    const right = [...lines.slice(0, 8)];
    right[0] = 'x';
    right[7] = 'y';
    const left = lines.slice(0, 8);
    const kinds = foldUnchanged(diffLineRows(left, right), 3).map((row) => row.kind);
    expect(kinds).not.toContain('folded');
  });
});
