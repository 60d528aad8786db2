import type { JsonPatchOperation } from './change-event';
import { jsonDiff } from './json-patch';

/** Applies an RFC 6902 patch of add/remove/replace operations, in order (the test's oracle). */
function applyPatch(document: unknown, patch: readonly JsonPatchOperation[]): unknown {
  let root: unknown = structuredClone(document);
  for (const operation of patch) {
    if (operation.path === '') {
      root = structuredClone(operation.value);
      continue;
    }
    const tokens = operation.path
      .split('/')
      .slice(1)
      .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = tokens.pop() as string;
    let parent = root as Record<string, unknown> | unknown[];
    for (const token of tokens) {
      parent = (Array.isArray(parent) ? parent[Number(token)] : parent[token]) as Record<string, unknown> | unknown[];
    }
    if (Array.isArray(parent)) {
      const index = Number(last);
      if (operation.op === 'add') parent.splice(index, 0, structuredClone(operation.value));
      else if (operation.op === 'remove') parent.splice(index, 1);
      else parent[index] = structuredClone(operation.value);
    } else if (operation.op === 'remove') {
      Reflect.deleteProperty(parent, last);
    } else {
      parent[last] = structuredClone(operation.value);
    }
  }
  return root;
}

describe('jsonDiff', () => {
  it('given equal documents, when diffed, then the patch is empty', () => {
    expect(jsonDiff({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toEqual([]);
  });

  it('given an empty previous value (a first version), when diffed, then each member is added in order', () => {
    expect(jsonDiff({}, { tags: [{ tag: 'urn:li:tag:pii' }], note: 'x' })).toEqual([
      { op: 'add', path: '/tags', value: [{ tag: 'urn:li:tag:pii' }] },
      { op: 'add', path: '/note', value: 'x' },
    ]);
  });

  it('given members removed, changed and added, when diffed, then removals and changes come in the old order, then additions', () => {
    expect(jsonDiff({ a: 1, b: 2, c: { d: 3 } }, { c: { d: 4 }, b: 2, e: 5 })).toEqual([
      { op: 'remove', path: '/a' },
      { op: 'replace', path: '/c/d', value: 4 },
      { op: 'add', path: '/e', value: 5 },
    ]);
  });

  it('given an element added to and another removed from an array, when diffed, then only those two are touched', () => {
    const before = { tags: [{ tag: 'a' }, { tag: 'b' }, { tag: 'c' }] };
    const after = { tags: [{ tag: 'a' }, { tag: 'c' }, { tag: 'd' }] };
    const patch = jsonDiff(before, after);
    expect(patch).toEqual([
      { op: 'add', path: '/tags/3', value: { tag: 'd' } },
      { op: 'remove', path: '/tags/1' },
    ]);
    expect(applyPatch(before, patch)).toEqual(after);
  });

  it('given an array element changed in place, when diffed, then the change is nested at its index', () => {
    expect(jsonDiff({ owners: [{ owner: 'x', type: 'A' }] }, { owners: [{ owner: 'x', type: 'B' }] })).toEqual([
      { op: 'replace', path: '/owners/0/type', value: 'B' },
    ]);
  });

  it('given keys holding "/" and "~", when diffed, then the pointer escapes them', () => {
    expect(jsonDiff({ props: {} }, { props: { 'a/b~c': '1' } })).toEqual([
      { op: 'add', path: '/props/a~1b~0c', value: '1' },
    ]);
  });

  it('given values of different types, when diffed, then the value is replaced whole', () => {
    expect(jsonDiff({ a: [1] }, { a: { b: 1 } })).toEqual([{ op: 'replace', path: '/a', value: { b: 1 } }]);
  });

  it('given arbitrary pairs of documents, when the patch is applied in order, then it gives the newer document', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const value = (depth: number): unknown => {
      const pick = random();
      if (depth > 2 || pick < 0.3) return Math.floor(random() * 4);
      if (pick < 0.65) return Array.from({ length: Math.floor(random() * 6) }, () => value(depth + 1));
      return Object.fromEntries(
        Array.from({ length: Math.floor(random() * 4) }, () => [`k${Math.floor(random() * 5)}`, value(depth + 1)]),
      );
    };
    for (let round = 0; round < 300; round++) {
      const before = { root: value(0) };
      const after = { root: value(0) };
      expect(applyPatch(before, jsonDiff(before, after))).toEqual(after);
    }
  });

  it('given large arrays whose middles differ widely, when diffed, then the patch is positional and still correct', () => {
    const before = { fields: Array.from({ length: 700 }, (_, index) => ({ path: `f${index}` })) };
    const after = { fields: Array.from({ length: 650 }, (_, index) => ({ path: `g${index}` })) };
    const patch = jsonDiff(before, after);
    expect(patch.filter((operation) => operation.op === 'remove')).toHaveLength(50);
    expect(applyPatch(before, patch)).toEqual(after);
  });
});
