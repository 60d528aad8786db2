import { applyAspectPatch, parseAspectPatch, PATCH_TEMPLATES, KEY_PATH_SEPARATOR as SEP } from './aspect-patch';
import type { JsonObject } from './aspect-validator';
import { ValidationError } from './errors';
import { testEntityRegistry } from './testing';

const registry = testEntityRegistry();
const context = { now: 1_700_000_000_000, urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)' };
const system = { time: context.now, actor: 'urn:li:corpuser:__datahub_system' };

/** Patches an aspect of an entity type and validates the result, as the writer does. */
function patched(entityType: string, aspectName: string, current: JsonObject | undefined, document: unknown) {
  const aspect = registry.entity(entityType)!.aspect(aspectName)!;
  const value = applyAspectPatch(aspect, current, parseAspectPatch(aspectName, document), context);
  return aspect.validate(value);
}

const add = (path: string, value: unknown) => ({ op: 'add', path, value });
const remove = (path: string) => ({ op: 'remove', path });
const tag = (name: string) => `urn:li:tag:${name}`;
const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const field = (table: string, column: string) => `urn:li:schemaField:(${dataset(table)},${column})`;

describe('applyAspectPatch: DataHub’s templates', () => {
  it('given globalTags, when tags are added and removed by URN, then the rest keep their order and fields', () => {
    const current = { tags: [{ tag: tag('a'), context: 'kept' }, { tag: tag('b') }] };
    expect(
      patched('dataset', 'globalTags', current, [
        add(`/tags/${tag('c')}`, { tag: tag('c') }),
        remove(`/tags/${tag('b')}`),
        remove(`/tags/${tag('never-there')}`),
        add(`/tags/${tag('a')}`, { tag: tag('a') }),
      ]),
    ).toEqual({ tags: [{ tag: tag('a') }, { tag: tag('c') }] });
  });

  it('given no globalTags yet, when a tag is added, then it starts from the empty template', () => {
    expect(patched('dataset', 'globalTags', undefined, [add(`/tags/${tag('a')}`, { tag: tag('a') })])).toEqual({
      tags: [{ tag: tag('a') }],
    });
  });

  it('given ownership, when owners are keyed by owner then type, then a value of {} takes both from the path', () => {
    const jdoe = 'urn:li:corpuser:jdoe';
    const ann = 'urn:li:corpuser:ann';
    expect(
      patched('dataset', 'ownership', undefined, [
        add(`/owners/${jdoe}/TECHNICAL_OWNER`, {}),
        add(`/owners/${ann}/DATAOWNER`, { owner: ann, type: 'DATAOWNER' }),
        add(`/owners/${jdoe}/BUSINESS_OWNER`, {}),
      ]),
    ).toEqual({
      owners: [
        { owner: jdoe, type: 'TECHNICAL_OWNER' },
        { owner: jdoe, type: 'BUSINESS_OWNER' },
        { owner: ann, type: 'DATAOWNER' },
      ],
      lastModified: system,
    });
    const current = {
      owners: [
        { owner: jdoe, type: 'TECHNICAL_OWNER' },
        { owner: ann, type: 'DATAOWNER' },
        { owner: jdoe, type: 'BUSINESS_OWNER' },
      ],
      lastModified: { time: 5, actor: jdoe },
    };
    expect(patched('dataset', 'ownership', current, [remove(`/owners/${jdoe}`)])).toEqual({
      owners: [{ owner: ann, type: 'DATAOWNER' }],
      lastModified: { time: 5, actor: jdoe },
    });
  });

  it('given glossaryTerms, when a term is added to none, then the required audit stamp is supplied', () => {
    const term = 'urn:li:glossaryTerm:Classification.PII';
    expect(patched('dataset', 'glossaryTerms', undefined, [add(`/terms/${term}`, { urn: term })])).toEqual({
      terms: [{ urn: term }],
      auditStamp: system,
    });
  });

  it('given datasetProperties, when custom properties, a description and plain-string tags are patched, then each lands', () => {
    const current = { customProperties: { keep: '1', drop: '2' }, name: 'orders', tags: ['x'] };
    expect(
      patched('dataset', 'datasetProperties', current, [
        add('/customProperties/owner~1team', 'sales'),
        remove('/customProperties/drop'),
        add('/description', 'Every order'),
        add('/tags/y', 'y'),
      ]),
    ).toEqual({
      customProperties: { keep: '1', 'owner/team': 'sales' },
      name: 'orders',
      description: 'Every order',
      tags: ['x', 'y'],
    });
  });

  it('given upstreamLineage, when upstreams and fine-grained lineages are added by URN, then DataHub’s shapes come back', () => {
    const upstream = dataset('my-bucket/my-folder');
    const value = patched('dataset', 'upstreamLineage', undefined, [
      add(`/upstreams/${upstream.replace(/\//g, '~1')}`, {
        auditStamp: { time: 0, actor: 'urn:li:corpuser:unknown' },
        dataset: upstream,
        type: 'TRANSFORMED',
      }),
      add(`/fineGrainedLineages/TRANSFORM/${field('t', 'foo')}/NONE/${field('u', 'bar')}`, { confidenceScore: 0.5 }),
      add(`/fineGrainedLineages/TRANSFORM/${field('t', 'foo')}/NONE/${field('u', 'baz')}`, { confidenceScore: 1 }),
    ]);
    expect(value).toEqual({
      upstreams: [
        { auditStamp: { time: 0, actor: 'urn:li:corpuser:unknown' }, dataset: upstream, type: 'TRANSFORMED' },
      ],
      fineGrainedLineages: [
        {
          upstreamType: 'FIELD_SET',
          upstreams: [field('u', 'bar'), field('u', 'baz')],
          downstreamType: 'FIELD',
          downstreams: [field('t', 'foo')],
          transformOperation: 'TRANSFORM',
          confidenceScore: 0.5,
        },
      ],
    });
  });

  it('given a fine-grained lineage with two downstreams, when patched, then DataHub’s refusal, naming the aspect', () => {
    const current = {
      upstreams: [],
      fineGrainedLineages: [
        { upstreamType: 'FIELD_SET', downstreamType: 'FIELD', downstreams: [field('t', 'a'), field('t', 'b')] },
      ],
    };
    expect(() => patched('dataset', 'upstreamLineage', current, [remove(`/upstreams/${dataset('x')}`)])).toThrow(
      /Patching is not supported on fine-grained lineages with other than exactly one downstream \(aspect upstreamLineage\)/,
    );
  });

  it('given editableSchemaMetadata, when a tag goes on a field, then the field entry and its tag list are keyed', () => {
    const current = {
      created: { time: 1, actor: 'urn:li:corpuser:a' },
      lastModified: { time: 1, actor: 'urn:li:corpuser:a' },
      editableSchemaFieldInfo: [{ fieldPath: 'id', description: 'the id', globalTags: { tags: [{ tag: tag('a') }] } }],
    };
    expect(
      patched('dataset', 'editableSchemaMetadata', current, [
        add(`/editableSchemaFieldInfo/id/globalTags/tags/${tag('b')}`, { tag: tag('b') }),
        add(`/editableSchemaFieldInfo/name/globalTags/tags/${tag('c')}`, { tag: tag('c') }),
      ]).editableSchemaFieldInfo,
    ).toEqual([
      { fieldPath: 'id', description: 'the id', globalTags: { tags: [{ tag: tag('a') }, { tag: tag('b') }] } },
      { fieldPath: 'name', globalTags: { tags: [{ tag: tag('c') }] } },
    ]);
  });

  it('given dataJobInputOutput, when edges and field URNs are added, then every other list comes back empty', () => {
    const edge = { destinationUrn: dataset('in') };
    expect(
      patched('dataJob', 'dataJobInputOutput', undefined, [
        add(`/inputDatasetEdges/${dataset('in')}`, edge),
        add(`/outputDatasetFields/${field('out', 'x')}`, field('out', 'x')),
      ]),
    ).toEqual({
      inputDatajobEdges: [],
      inputDatasetEdges: [edge],
      outputDatasetEdges: [],
      fineGrainedLineages: [],
      inputDatasetFields: [],
      outputDatasetFields: [field('out', 'x')],
      inputDatajobs: [],
      inputDatasets: [],
      outputDatasets: [],
    });
  });

  it('given chartInfo and dashboardInfo, when inputs and charts are added, then edges and plain lists are keyed', () => {
    const chart = 'urn:li:chart:(looker,c1)';
    expect(
      patched('chart', 'chartInfo', undefined, [
        add('/title', 'Revenue'),
        add(`/inputEdges/${dataset('a')}`, { destinationUrn: dataset('a') }),
      ]),
    ).toMatchObject({ title: 'Revenue', description: '', inputEdges: [{ destinationUrn: dataset('a') }], inputs: [] });
    expect(
      patched('dashboard', 'dashboardInfo', undefined, [
        add(`/chartEdges/${chart}`, { destinationUrn: chart }),
        add(`/charts/${chart}`, chart),
      ]),
    ).toMatchObject({ chartEdges: [{ destinationUrn: chart }], charts: [chart], datasets: [], datasetEdges: [] });
  });

  it('given siblings, domains, status and documentation, when patched, then DataHub’s keys apply', () => {
    expect(patched('dataset', 'siblings', undefined, [add(`/siblings/${dataset('s')}`, dataset('s'))])).toEqual({
      siblings: [dataset('s')],
      primary: false,
    });
    expect(patched('dataset', 'domains', undefined, [add('/domains/urn:li:domain:d', 'urn:li:domain:d')])).toEqual({
      domains: ['urn:li:domain:d'],
    });
    expect(patched('dataset', 'status', undefined, [add('/removed', true)])).toEqual({ removed: true });
    const documentation = {
      documentation: 'Read me',
      attribution: { time: 1, actor: 'urn:li:corpuser:a', source: 'urn:li:x:y' },
    };
    expect(patched('dataset', 'documentation', undefined, [add('/documentations/urn:li:x:y', documentation)])).toEqual({
      documentations: [documentation],
    });
  });

  it('given a structured property definition, when entity types and allowed values are patched, then they are keyed', () => {
    const current = {
      qualifiedName: 'io.acryl.tier',
      valueType: 'urn:li:dataType:datahub.string',
      entityTypes: ['urn:li:entityType:datahub.dataset'],
      allowedValues: [{ value: { string: 'gold' } }, { value: { string: 'silver' } }],
    };
    expect(
      patched('structuredProperty', 'propertyDefinition', current, [
        add('/entityTypes/urn:li:entityType:datahub.chart', 'urn:li:entityType:datahub.chart'),
        remove('/allowedValues/silver'),
        add('/allowedValues/bronze', { value: { string: 'bronze' }, description: 'Lowest' }),
      ]),
    ).toEqual({
      qualifiedName: 'io.acryl.tier',
      valueType: 'urn:li:dataType:datahub.string',
      entityTypes: ['urn:li:entityType:datahub.dataset', 'urn:li:entityType:datahub.chart'],
      allowedValues: [{ value: { string: 'gold' } }, { value: { string: 'bronze' }, description: 'Lowest' }],
    });
  });

  it('given dataFlowInfo absent, when only a property is patched, then the result lacks the required name: 422', () => {
    expect(() => patched('dataFlow', 'dataFlowInfo', undefined, [add('/customProperties/k', 'v')])).toThrow(
      /name: required field is missing/,
    );
  });

  it('lists every aspect DataHub has a template for, each one an aspect of the registry', () => {
    const aspects = new Set(registry.entities().flatMap((entity) => entity.aspects.map((aspect) => aspect.name)));
    expect(Object.keys(PATCH_TEMPLATES).filter((name) => !aspects.has(name))).toEqual([]);
    expect(Object.keys(PATCH_TEMPLATES)).toHaveLength(23);
  });
});

describe('applyAspectPatch: the generic form', () => {
  it('given arrayPrimaryKeys with a nested key, when a tag is added with an empty source, then it is keyed by both', () => {
    const document = {
      arrayPrimaryKeys: { tags: [`attribution${SEP}source`, 'tag'] },
      patch: [add(`/tags//${tag('a')}`, { tag: tag('a') })],
    };
    expect(patched('dataset', 'globalTags', { tags: [{ tag: tag('z') }] }, document)).toEqual({
      tags: [{ tag: tag('z') }, { tag: tag('a') }],
    });
  });

  it('given an aspect without a template, when the generic form names its keys, then it starts from {}', () => {
    const url = 'https://wiki.example.com/orders';
    const element = { url, description: 'Runbook', createStamp: { time: 1, actor: 'urn:li:corpuser:a' } };
    expect(
      patched('dataset', 'institutionalMemory', undefined, {
        arrayPrimaryKeys: { elements: ['url'] },
        patch: [add(`/elements/${url.replace(/\//g, '~1')}`, element)],
      }),
    ).toEqual({ elements: [element] });
  });

  it('given {"patch": [...]} without keys, when applied, then it is a plain patch', () => {
    expect(patched('dataset', 'status', { removed: true }, { patch: [add('/removed', false)] })).toEqual({
      removed: false,
    });
  });
});

describe('applyAspectPatch: what cannot apply', () => {
  it('given an absent aspect without a template, when patched, then DataHub’s message', () => {
    expect(() => patched('dataset', 'institutionalMemory', undefined, [add('/elements', [])])).toThrow(
      new ValidationError(
        `Patch not supported for aspect with name institutionalMemory. Default aspect is required because no aspect currently exists for urn ${context.urn}.`,
      ),
    );
  });

  it('given an existing aspect without a template, when patched, then the operations apply to it as it is', () => {
    const current = {
      elements: [{ url: 'https://a', description: 'A', createStamp: { time: 1, actor: 'urn:li:corpuser:a' } }],
    };
    expect(patched('dataset', 'institutionalMemory', current, [add('/elements/0/description', 'B')])).toEqual({
      elements: [{ url: 'https://a', description: 'B', createStamp: { time: 1, actor: 'urn:li:corpuser:a' } }],
    });
  });

  it('given a replace of what is not there, when applied, then the error names the operation', () => {
    expect(() =>
      patched('dataset', 'globalTags', { tags: [] }, [
        add('/tags/x', { tag: tag('x') }),
        { op: 'replace', path: '/missing/deep', value: 1 },
      ]),
    ).toThrow(/^Patch operation 1 \(replace \/missing\/deep\) cannot apply to aspect globalTags: /);
  });

  it('given a patch that sets a prototype, when applied, then it is refused', () => {
    expect(() => patched('dataset', 'status', { removed: false }, [add('/__proto__/polluted', true)])).toThrow(
      /Patch operation 0 \(add \/__proto__\/polluted\) cannot apply/,
    );
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it.each([
    [{ op: 'add', path: '/x' }, 'operation 0: add needs a value'],
    [{ op: 'merge', path: '/x', value: 1 }, 'operation 0: unsupported op "merge"'],
    [{ op: 'add', path: 'x', value: 1 }, 'operation 0: path must be a JSON pointer'],
    [{ op: 'move', path: '/x' }, 'operation 0: move needs "from"'],
    ['not an op', 'operation 0 must be an object'],
  ])('given the malformed operation %j, when parsed, then the reason', (operation, reason) => {
    expect(() => parseAspectPatch('status', [operation])).toThrow(`Invalid JSON Patch for aspect status: ${reason}`);
  });

  it.each([
    [{ removed: true }, 'expected a JSON array of operations, or an object with "patch"'],
    [{ patch: {} }, '"patch" must be an array of operations'],
    [{ patch: [], arrayPrimaryKeys: { tags: [3] } }, 'arrayPrimaryKeys.tags must be an array of field names'],
  ])('given the malformed document %j, when parsed, then the reason', (document, reason) => {
    expect(() => parseAspectPatch('status', document)).toThrow(`Invalid JSON Patch for aspect status: ${reason}`);
  });
});
