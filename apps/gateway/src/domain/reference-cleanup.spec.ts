import { ConflictError, PreconditionFailedError, type JsonObject } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import {
  cleanReferences,
  EDGE_PAGE,
  MAX_ATTEMPTS,
  proposalOf,
  type IncomingEdge,
  type LatestAspect,
  type ReferenceEdit,
  type ReferenceReads,
} from './reference-cleanup';

const registry = testEntityRegistry();
const tag = 'urn:li:tag:pii';
const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const flow = 'urn:li:dataFlow:(airflow,nightly,prod)';

/**
 * A catalog in memory behind the reads: aspects by URN, and a graph derived from them the way the search indexer
 * derives it — unless `staleEdges` adds edges no aspect holds. `apply` writes edits as the writer would, checking
 * each one's version.
 */
class Catalog implements ReferenceReads {
  readonly aspects = new Map<string, Map<string, { value: JsonObject; version: number }>>();
  readonly staleEdges: IncomingEdge[] = [];
  readonly reads: { urns: readonly string[]; aspects: readonly string[] }[] = [];
  applied = 0;
  /** Called before each edit is written: a concurrent writer. */
  beforeWrite: (edit: ReferenceEdit) => void = () => undefined;

  put(urn: string, aspect: string, value: JsonObject): void {
    const aspects = this.aspects.get(urn) ?? new Map<string, { value: JsonObject; version: number }>();
    aspects.set(aspect, { value, version: (aspects.get(aspect)?.version ?? 0) + 1 });
    this.aspects.set(urn, aspects);
  }

  incoming(urn: string, start: number, count: number) {
    const edges: IncomingEdge[] = [...this.staleEdges];
    for (const [source, aspects] of this.aspects) {
      const globalTags = aspects.get('globalTags')?.value['tags'] as { tag: string }[] | undefined;
      if (globalTags?.some((association) => association.tag === urn)) edges.push({ type: 'TaggedWith', source });
      if (aspects.get('container')?.value['container'] === urn) edges.push({ type: 'IsPartOf', source });
      if (aspects.has('dataJobKey') && source.includes(urn)) edges.push({ type: 'IsPartOf', source });
    }
    edges.sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
    return Promise.resolve({ total: edges.length, edges: edges.slice(start, start + count) });
  }

  latest(urns: readonly string[], aspects: readonly string[]) {
    this.reads.push({ urns, aspects });
    const found = new Map<string, Map<string, LatestAspect>>();
    for (const urn of urns) {
      const values = new Map<string, LatestAspect>();
      for (const name of aspects) {
        const stored = this.aspects.get(urn)?.get(name);
        if (stored) values.set(name, { value: structuredClone(stored.value), version: String(stored.version) });
      }
      found.set(urn, values);
    }
    return Promise.resolve(found);
  }

  apply = (edits: readonly ReferenceEdit[]): Promise<void> => {
    for (const edit of edits) {
      proposalOf(registry, edit); // each is a valid proposal
      this.beforeWrite(edit);
      const aspects = this.aspects.get(edit.entity);
      const stored = aspects?.get(edit.aspect);
      if (String(stored?.version) !== edit.version) {
        return Promise.reject(new PreconditionFailedError(`Expected version ${edit.version}`));
      }
      if (edit.value === undefined) aspects?.delete(edit.aspect);
      else this.put(edit.entity, edit.aspect, edit.value);
      this.applied++;
    }
    return Promise.resolve();
  };
}

const tags = (...urns: string[]) => ({ tags: urns.map((urn) => ({ tag: urn })) });
const clean = (catalog: Catalog, urn: string, dryRun: boolean) =>
  cleanReferences(registry, urn, { dryRun }, catalog, catalog.apply);

describe('cleanReferences', () => {
  it('given tagged datasets, when a dry run, then it reports them and changes nothing', async () => {
    const catalog = new Catalog();
    catalog.put(dataset('a'), 'globalTags', tags(tag, 'urn:li:tag:gold'));
    catalog.put(dataset('b'), 'globalTags', tags('urn:li:tag:gold'));

    expect(await clean(catalog, tag, true)).toEqual({
      total: 1,
      relatedAspects: [{ relationship: 'TaggedWith', entity: dataset('a'), aspect: 'globalTags' }],
    });
    expect(catalog.applied).toBe(0);
  });

  it('given tagged datasets, when run, then each loses the tag and nothing else', async () => {
    const catalog = new Catalog();
    catalog.put(dataset('a'), 'globalTags', tags(tag, 'urn:li:tag:gold'));
    catalog.put(dataset('b'), 'globalTags', tags(tag));

    expect((await clean(catalog, tag, false)).total).toBe(2);
    expect(catalog.aspects.get(dataset('a'))?.get('globalTags')?.value).toEqual(tags('urn:li:tag:gold'));
    expect(catalog.aspects.get(dataset('b'))?.get('globalTags')?.value).toEqual(tags());
    expect(await clean(catalog, tag, true)).toEqual({ total: 0, relatedAspects: [] });
  });

  it('given more references than the graph pages and the answer lists, then it cleans all and lists ten', async () => {
    const catalog = new Catalog();
    const many = EDGE_PAGE * 2 + 5;
    for (let index = 0; index < many; index++) catalog.put(dataset(`t${index}`), 'globalTags', tags(tag));

    const dry = await clean(catalog, tag, true);
    expect(dry.total).toBe(many);
    expect(dry.relatedAspects).toHaveLength(10);
    expect(catalog.reads.length).toBeLessThanOrEqual(EDGE_PAGE / 25); // the dry run stops once it has ten

    const done = await clean(catalog, tag, false);
    expect(done.total).toBe(many);
    expect(catalog.applied).toBe(many);
    expect((await catalog.incoming(tag, 0, 10)).total).toBe(0);
  });

  it('given edges the graph has but no aspect holds, then they are passed over, and the rest cleaned', async () => {
    const catalog = new Catalog();
    for (let index = 0; index < EDGE_PAGE + 1; index++) {
      catalog.staleEdges.push({ type: 'TaggedWith', source: dataset(`a-stale-${String(index).padStart(5, '0')}`) });
    }
    catalog.put(dataset('z-real'), 'globalTags', tags(tag));

    const done = await clean(catalog, tag, false);
    expect(done.total).toBe(EDGE_PAGE + 2);
    expect(done.relatedAspects).toEqual([
      { relationship: 'TaggedWith', entity: dataset('z-real'), aspect: 'globalTags' },
    ]);
    expect(catalog.aspects.get(dataset('z-real'))?.get('globalTags')?.value).toEqual(tags());
  });

  it('given a container, when run, then the aspect that was only the reference is deleted', async () => {
    const catalog = new Catalog();
    catalog.put(dataset('a'), 'container', { container: 'urn:li:container:c' });

    expect(await clean(catalog, 'urn:li:container:c', false)).toEqual({
      total: 1,
      relatedAspects: [{ relationship: 'IsPartOf', entity: dataset('a'), aspect: 'container' }],
    });
    expect(catalog.aspects.get(dataset('a'))?.has('container')).toBe(false);
  });

  it('given a job of a flow, then the key naming the flow is left alone', async () => {
    const catalog = new Catalog();
    const job = `urn:li:dataJob:(${flow},load)`;
    catalog.put(job, 'dataJobKey', { flow, jobId: 'load' });

    expect(await clean(catalog, flow, false)).toEqual({ total: 1, relatedAspects: [] });
    expect(catalog.reads).toEqual([]);
    expect(catalog.aspects.get(job)?.get('dataJobKey')?.value).toEqual({ flow, jobId: 'load' });
  });

  it('given a write between the read and the edit, then the edit is computed again and keeps that write', async () => {
    const catalog = new Catalog();
    catalog.put(dataset('a'), 'globalTags', tags(tag));
    let raced = false;
    catalog.beforeWrite = (edit) => {
      if (raced) return;
      raced = true;
      catalog.put(edit.entity, 'globalTags', tags(tag, 'urn:li:tag:new'));
    };

    await clean(catalog, tag, false);
    expect(catalog.aspects.get(dataset('a'))?.get('globalTags')?.value).toEqual(tags('urn:li:tag:new'));
  });

  it('given an aspect that changes before every write, then it gives up with a 409 after a few attempts', async () => {
    const catalog = new Catalog();
    catalog.put(dataset('a'), 'globalTags', tags(tag));
    let writes = 0;
    catalog.beforeWrite = (edit) => {
      writes++;
      catalog.put(edit.entity, 'globalTags', tags(tag, `urn:li:tag:n${writes}`));
    };

    await expect(clean(catalog, tag, false)).rejects.toThrow(ConflictError);
    expect(writes).toBe(MAX_ATTEMPTS);
  });
});
