/**
 * Property-based fuzzing of every public endpoint, against Strata run as a user runs it: generated bodies, query
 * strings, paths and URNs — malformed JSON, wrong types, huge and deeply nested values, odd unicode, malformed
 * percent-escapes, URNs with unbalanced parentheses, extreme numbers — must each get a 2xx or a 4xx, never a 5xx; a 4xx
 * comes in its endpoint family's error body, every answer but the documentation's is JSON, and a rejected write leaves
 * nothing behind. Bounded in cases and in time: `npm test` runs a few hundred cases per property, and
 * STRATA_TEST_SCALE=large up to 5,000 per property for at most 8 s each; the number of cases run is printed.
 */
import fc from 'fast-check';
import {
  datasetUrn,
  scaled,
  startStandalone,
  TestHttpClient,
  type StandaloneProcess,
  type TestResponse,
} from '@strata/testing';

let strata: StandaloneProcess;
let http: TestHttpClient;
const casesRun: Record<string, number> = {};

beforeAll(async () => {
  strata = await startStandalone({ env: { MAX_BODY_BYTES: String(1024 * 1024) } });
  http = new TestHttpClient(strata.baseUrl);
});

afterAll(async () => {
  await strata.stop();
  strata.cleanUp();
  const total = Object.values(casesRun).reduce((sum, count) => sum + count, 0);
  console.log(`hostile input: ${total} generated requests, by property: ${JSON.stringify(casesRun)}`);
});

// --- What every answer must be -----------------------------------------------------------------------------------

type Family = 'restli' | 'openapi' | 'schema-registry';

function familyOf(path: string): Family {
  if (path.startsWith('/openapi/')) return 'openapi';
  if (path.startsWith('/schema-registry/')) return 'schema-registry';
  return 'restli';
}

/** The pages written for people (HTML): the front page, the Rest.li index and Swagger UI, beneath DataHub's prefix too. */
const DOCUMENTATION_PAGE = /^(\/api\/gms)?(\/|\/restli\/docs|\/openapi\/swagger-ui(\/|\/index\.html)?)?$/;

/** Never a 5xx; JSON (the documentation's pages aside); and a 4xx in the family's error body. */
function checkAnswer(path: string, response: TestResponse): void {
  const context = `${path} answered ${response.status}: ${response.text.slice(0, 300)}`;
  if (response.status >= 500) throw new Error(context);
  const page = response.status < 300 && DOCUMENTATION_PAGE.test(path.split('?')[0] ?? '');
  if (!page && response.text !== '' && response.json === undefined) throw new Error(`not JSON: ${context}`);
  if (response.status < 400) return;
  const body = response.json as Record<string, unknown> | undefined;
  switch (familyOf(path)) {
    case 'restli':
      if (
        response.headers.get('x-restli-error-response') !== 'true' ||
        body?.['exceptionClass'] !== 'com.linkedin.restli.server.RestLiServiceException' ||
        body['status'] !== response.status ||
        typeof body['message'] !== 'string'
      ) {
        throw new Error(`not a Rest.li error body: ${context}`);
      }
      break;
    case 'openapi':
      if (typeof body?.['error'] !== 'string') throw new Error(`not an OpenAPI error body: ${context}`);
      break;
    case 'schema-registry':
      if (typeof body?.['error_code'] !== 'number' || typeof body['message'] !== 'string') {
        throw new Error(`not a schema-registry error body: ${context}`);
      }
      break;
  }
}

/** The only aspect a URN reads as when nothing was ever written to it is its key, derived from the URN. */
async function expectNothingWritten(urn: string): Promise<void> {
  // Only URNs made fresh for one case: generated text may name a URN an earlier case wrote to, rightly.
  if (!isFresh(urn)) return;
  const response = await http.get(`/entitiesV2/${encodeURIComponent(urn)}`);
  if (response.status !== 200) return; // a URN that cannot be read cannot have been written
  const aspects = Object.keys((response.json as { aspects: object }).aspects);
  if (aspects.length !== 1) throw new Error(`a rejected write left ${aspects.join(', ')} on ${urn}`);
  const key = await http.get(`/aspects/${encodeURIComponent(urn)}?aspect=${aspects[0] ?? ''}`);
  if (key.status !== 404) throw new Error(`a rejected write stored the key aspect of ${urn}`);
}

/** A failure's seed, to replay it: `STRATA_FUZZ_SEED=<seed> npx jest e2e/hostile-input`. */
const replaySeed = process.env['STRATA_FUZZ_SEED'] === undefined ? undefined : Number(process.env['STRATA_FUZZ_SEED']);

/** Cases per property, and the time a property may take at most (whichever ends it first). */
const CASES = scaled(250, 5_000);
const SECONDS = scaled(20, 8);

/** Runs a property for at most CASES cases and SECONDS, counting its cases; fails with fast-check's report. */
async function fuzz<T>(name: string, arbitrary: fc.Arbitrary<T>, check: (value: T) => Promise<void>) {
  const details = await fc.check(fc.asyncProperty(arbitrary, check), {
    ...(replaySeed === undefined ? {} : { seed: replaySeed }),
    numRuns: CASES,
    interruptAfterTimeLimit: SECONDS * 1_000,
    markInterruptAsFailure: false,
  });
  casesRun[name] = details.numRuns;
  if (details.failed) {
    const counterexample = JSON.stringify(details.counterexample).slice(0, 600);
    throw new Error(
      `${name} (seed ${details.seed}): ${String(details.errorInstance)}\ncounterexample (cut): ${counterexample}`,
    );
  }
  expect(details.numRuns).toBeGreaterThan(50);
}

// --- Generated input ---------------------------------------------------------------------------------------------

let sequence = 0;
const FRESH = `fuzz_${Date.now()}_`;
/** A URN no earlier case wrote to, so that anything stored under it after a rejection is a leak. */
const freshUrn = () => datasetUrn(`${FRESH}${(sequence += 1)}`);
const isFresh = (urn: string) => urn.startsWith(datasetUrn(FRESH).slice(0, -',PROD)'.length));

const oddStrings = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '\uD800', '\uFFFF', '%', '%zz', '%E0%A4%A', 'ü'.repeat(300), 'x'.repeat(20_000)),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty'),
);

const extremeNumbers = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, 1.5, 1e300, -1e300, 2 ** 53 + 2, -(2 ** 53) - 2, Number.MAX_VALUE, Number.MIN_VALUE),
  fc.integer(),
);

/** JSON values, deeply nested now and then. */
const jsonValues: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 2, arbitrary: oddStrings },
  { weight: 2, arbitrary: extremeNumbers },
  { weight: 1, arbitrary: fc.integer({ min: 500, max: 3_000 }).map((depth) => nested(depth)) },
  { weight: 1, arbitrary: fc.dictionary(oddStrings, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 8 }) },
);

function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? [value] : { a: value };
  return value;
}

const urnTexts = fc.oneof(
  fc.constant(null).map(() => freshUrn()),
  fc.constantFrom(
    'urn:li:dataset:(urn:li:dataPlatform:hive,unbalanced',
    'urn:li:dataset:urn:li:dataPlatform:hive,x,PROD)',
    'urn:li:dataset:((((',
    'urn:li:dataset:(,,)',
    'urn:li:corpuser:',
    'urn:li::x',
    'urn:li:spaceship:enterprise',
    'not-a-urn',
    `urn:li:dataset:(urn:li:dataPlatform:hive,${'t'.repeat(600)},PROD)`,
    'urn:li:dataset:(urn:li:dataPlatform:hive,%ZZ,PROD)',
    'urn:li:corpuser:ünïcødé',
  ),
  oddStrings.map((text) => `urn:li:dataset:(urn:li:dataPlatform:hive,${text},PROD)`),
  oddStrings,
);

const aspectNames = fc.oneof(
  fc.constantFrom(
    'status',
    'datasetProperties',
    'ownership',
    'globalTags',
    'upstreamLineage',
    'schemaMetadata',
    'datasetKey',
    'datasetProfile',
    'browsePaths',
  ),
  oddStrings,
);

const changeTypes = fc.oneof(
  fc.constantFrom('UPSERT', 'UPDATE', 'CREATE', 'CREATE_ENTITY', 'DELETE', 'PATCH', 'RESTATE'),
  oddStrings,
);

/** JSON Patch documents, plain and in DataHub's generic form, with paths that probe the keyed arrays and prototypes. */
const patchPaths = fc.oneof(
  fc.constantFrom('/tags/urn:li:tag:x', '/owners/urn:li:corpuser:a/DATAOWNER', '/__proto__/polluted', '/a~1b/~0', ''),
  fc.constantFrom('/customProperties/k', '/fineGrainedLineages/TRANSFORM/x/NONE/y', '/constructor/prototype/x'),
  oddStrings.map((text) => `/${text}`),
  oddStrings,
);
const patchOperations = fc.array(
  fc.record(
    {
      op: fc.oneof(fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test'), oddStrings),
      path: fc.oneof({ weight: 4, arbitrary: patchPaths }, { weight: 1, arbitrary: jsonValues }),
      value: jsonValues,
      from: patchPaths,
    },
    { requiredKeys: ['op', 'path'] },
  ),
  { maxLength: 6 },
);
const patchDocuments = fc.oneof(
  patchOperations,
  fc.record({
    patch: fc.oneof({ weight: 4, arbitrary: patchOperations }, { weight: 1, arbitrary: jsonValues }),
    arrayPrimaryKeys: fc.oneof(
      fc.dictionary(oddStrings, fc.array(fc.oneof(oddStrings, fc.constant('attribution\u241Fsource'))), { maxKeys: 3 }),
      jsonValues,
    ),
  }),
);

/** A proposal: mostly well formed, with any field replaced by generated junk now and then. */
const proposals = fc
  .record({
    entityType: fc.oneof({ weight: 5, arbitrary: fc.constant('dataset') }, { weight: 1, arbitrary: jsonValues }),
    entityUrn: fc.oneof({ weight: 4, arbitrary: urnTexts }, { weight: 1, arbitrary: jsonValues }),
    changeType: fc.oneof({ weight: 4, arbitrary: changeTypes }, { weight: 1, arbitrary: jsonValues }),
    aspectName: fc.oneof({ weight: 4, arbitrary: aspectNames }, { weight: 1, arbitrary: jsonValues }),
    aspect: fc.oneof(
      {
        weight: 4,
        arbitrary: jsonValues.map((value) => ({ value: JSON.stringify(value), contentType: 'application/json' })),
      },
      { weight: 1, arbitrary: oddStrings.map((text) => ({ value: text, contentType: 'application/json' })) },
      { weight: 1, arbitrary: jsonValues.map((value) => ({ value })) },
      { weight: 1, arbitrary: jsonValues },
      {
        weight: 2,
        arbitrary: patchDocuments.map((patch) => ({
          value: JSON.stringify(patch),
          contentType: 'application/json-patch+json',
        })),
      },
    ),
    systemMetadata: fc.option(
      fc.oneof(
        fc.record({ lastObserved: extremeNumbers, runId: fc.oneof(oddStrings, jsonValues) }, { requiredKeys: [] }),
        jsonValues,
      ),
      { nil: undefined },
    ),
    headers: fc.option(fc.oneof(fc.dictionary(oddStrings, oddStrings, { maxKeys: 4 }), jsonValues), { nil: undefined }),
  })
  .map((proposal) => {
    // Keep the well-formed URN's entity type in step now and then, so that deeper checks are reached too.
    return typeof proposal.entityUrn === 'string' &&
      proposal.entityUrn.startsWith('urn:li:dataset:(urn:li:dataPlatform:hive,fuzz_')
      ? { ...proposal, entityType: 'dataset' }
      : proposal;
  });

/** Request bodies as raw text: valid JSON of a generated value, or text that is not JSON at all. */
const bodiesAround = (value: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 6, arbitrary: value.map((body) => JSON.stringify(body)) },
    { weight: 1, arbitrary: oddStrings },
    { weight: 1, arbitrary: fc.constantFrom('{', '[1,', '{"proposal": tru', 'null', '""', '1e400', '{"a":1}{"b":2}') },
  );

const queryValues = fc.oneof(
  oddStrings,
  fc.constantFrom('List(', 'List()', 'List(a,b', 'List((a)', '%', '%zz', '%E0%A4%A', 'true', '-1', '1.5', '1e400'),
  extremeNumbers.map(String),
);

/** A query string: the given names and random ones, with generated values, sometimes repeated. */
const queryStrings = (names: readonly string[]) =>
  fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...names), oddStrings), queryValues), { maxLength: 5 })
    .map((pairs) => pairs.map(([name, value]) => `${escapeLoosely(name)}=${escapeLoosely(value)}`).join('&'));

/** Percent-encodes what a URL cannot carry, but keeps `%` as sent, so that malformed escapes reach the server. */
function escapeLoosely(text: string): string {
  return encodeURIComponent(text.toWellFormed()).replace(/%25/g, '%');
}

/** A URN as a path segment: raw, percent-encoded, or with junk escapes. */
const urnSegments = fc
  .tuple(urnTexts, fc.constantFrom('raw', 'encoded', 'loose'))
  .map(([urn, form]) =>
    form === 'encoded'
      ? encodeURIComponent(urn.toWellFormed())
      : form === 'loose'
        ? escapeLoosely(urn)
        : urn.toWellFormed().replace(/[#?\s%]/g, ''),
  );

// --- Properties --------------------------------------------------------------------------------------------------

describe('hostile input to every public endpoint', () => {
  it('ingestProposal: never a 5xx, and a rejected proposal writes nothing', async () => {
    await fuzz(
      'ingestProposal',
      fc.tuple(
        proposals,
        fc.option(fc.oneof(fc.boolean(), oddStrings), { nil: undefined }),
        queryStrings(['async', 'wait']),
      ),
      async ([proposal, asyncFlag, query]) => {
        const path = `/aspects?action=ingestProposal${query === '' ? '' : `&${query}`}`;
        const body = JSON.stringify({ proposal, ...(asyncFlag === undefined ? {} : { async: asyncFlag }) });
        const response = await http.post(path, body);
        checkAnswer(path, response);
        if (response.status >= 400 && typeof proposal.entityUrn === 'string')
          await expectNothingWritten(proposal.entityUrn);
      },
    );
  });

  it('ingestProposalBatch: never a 5xx, and a batch refused before publishing writes none of it', async () => {
    await fuzz('ingestProposalBatch', fc.array(proposals, { minLength: 0, maxLength: 6 }), async (batch) => {
      const path = '/aspects?action=ingestProposalBatch';
      const response = await http.post(path, { proposals: batch });
      checkAnswer(path, response);
      // A refusal with per-proposal details came from the writer, after some were applied (ADR 11).
      const appliedSome = (response.json as { errorDetails?: unknown } | undefined)?.errorDetails !== undefined;
      if (response.status >= 400 && !appliedSome) {
        for (const proposal of batch) {
          if (typeof proposal.entityUrn === 'string') await expectNothingWritten(proposal.entityUrn);
        }
      }
    });
  });

  it('legacy ingest: never a 5xx, and a refused snapshot writes nothing', async () => {
    const snapshots = fc.record({
      urn: urnTexts,
      aspects: fc.oneof(
        fc.array(
          fc.oneof(
            fc.record({ 'com.linkedin.common.Status': fc.oneof(fc.record({ removed: fc.boolean() }), jsonValues) }),
            fc.dictionary(
              fc.oneof(
                fc.constantFrom('com.linkedin.common.Ownership', 'com.linkedin.dataset.DatasetProperties'),
                oddStrings,
              ),
              jsonValues,
              { maxKeys: 2 },
            ),
          ),
          { maxLength: 4 },
        ),
        jsonValues,
      ),
    });
    const entities = fc.oneof(
      {
        weight: 4,
        arbitrary: snapshots.map((snapshot) => ({
          value: { 'com.linkedin.metadata.snapshot.DatasetSnapshot': snapshot },
        })),
      },
      { weight: 1, arbitrary: jsonValues },
    );
    await fuzz('legacy ingest', fc.tuple(entities, bodiesAround(fc.constant(null))), async ([entity, junk]) => {
      const path = '/entities?action=ingest';
      const useJunk = junk.length % 7 === 0;
      const response = await http.post(path, useJunk ? junk : JSON.stringify({ entity }));
      checkAnswer(path, response);
      const urn = (entity as { value?: Record<string, { urn?: unknown } | null> } | null)?.value?.[
        'com.linkedin.metadata.snapshot.DatasetSnapshot'
      ]?.urn;
      if (response.status >= 400 && !useJunk && typeof urn === 'string') await expectNothingWritten(urn);
    });
  });

  it('entity and aspect reads: never a 5xx, whatever the URN and the query', async () => {
    const reads = fc.oneof(
      fc.tuple(urnSegments, queryStrings(['aspects'])).map(([urn, query]) => `/entitiesV2/${urn}?${query}`),
      fc.tuple(urnSegments, queryStrings(['aspects'])).map(([urn, query]) => `/entities/${urn}?${query}`),
      fc.tuple(urnSegments, queryStrings(['aspect', 'version'])).map(([urn, query]) => `/aspects/${urn}?${query}`),
      fc
        .tuple(fc.array(urnSegments, { maxLength: 5 }), queryStrings(['aspects']))
        .map(([urns, query]) => `/entitiesV2?ids=List(${urns.join(',')})&${query}`),
      fc
        .tuple(queryStrings(['urn', 'direction', 'types', 'start', 'count']))
        .map(([query]) => `/relationships?${query}`),
    );
    await fuzz('reads', reads, async (path) => {
      checkAnswer(path, await http.get(path));
    });
  });

  it('search, browse and autocomplete: never a 5xx, whatever the text, filter and paging', async () => {
    const words = fc.constantFrom(
      'orders',
      'NOT',
      'OR',
      'AND',
      '-',
      '"',
      '(',
      ')',
      '*',
      '?',
      'name:',
      'urn:',
      'origin:PROD',
      '\\',
      ':',
      '~',
      '^2',
      '{',
      '}',
    );
    const texts = fc.oneof(
      fc.array(fc.oneof(words, oddStrings), { maxLength: 40 }).map((parts) => parts.join(' ')),
      fc.array(words, { minLength: 100, maxLength: 800 }).map((parts) => parts.join(' ')),
      oddStrings,
    );
    const criteria = fc.record(
      {
        field: fc.oneof(fc.constantFrom('origin', 'platform', 'tags', 'owners', 'removed', 'name', 'nope'), oddStrings),
        value: fc.oneof(oddStrings, jsonValues),
        values: fc.oneof(fc.array(oddStrings, { maxLength: 5 }), jsonValues),
        condition: fc.oneof(
          fc.constantFrom(
            'EQUAL',
            'CONTAIN',
            'START_WITH',
            'END_WITH',
            'GREATER_THAN',
            'LESS_THAN',
            'IN',
            'EXISTS',
            'IS_NULL',
            'REGEX',
          ),
          oddStrings,
        ),
        negated: fc.oneof(fc.boolean(), jsonValues),
      },
      { requiredKeys: ['field'] },
    );
    const filters = fc.oneof(
      fc.record({ or: fc.array(fc.record({ and: fc.array(criteria, { maxLength: 6 }) }), { maxLength: 4 }) }),
      fc.record({ criteria: fc.array(criteria, { maxLength: 6 }) }),
      fc.array(criteria, { minLength: 90, maxLength: 1_200 }).map((many) => ({ or: [{ and: many }] })),
      jsonValues,
    );
    const paging = fc.oneof(fc.integer({ min: -5, max: 20_000 }), extremeNumbers, jsonValues);
    const requests = fc.oneof(
      fc
        .record(
          {
            input: fc.oneof(texts, jsonValues),
            entity: fc.oneof(fc.constantFrom('dataset', 'corpuser', 'spaceship'), jsonValues),
            start: paging,
            count: paging,
            filter: filters,
          },
          { requiredKeys: ['input', 'entity'] },
        )
        .map((body) => ({ action: 'search', body })),
      fc
        .record(
          {
            path: fc.oneof(oddStrings, fc.constantFrom('/', '/prod', '//', '/prod/hive')),
            entity: fc.constantFrom('dataset', 'chart'),
            start: paging,
            limit: paging,
            filter: filters,
          },
          { requiredKeys: ['entity'] },
        )
        .map((body) => ({ action: 'browse', body })),
      fc
        .record(
          {
            query: fc.oneof(texts, jsonValues),
            entity: fc.constantFrom('dataset', 'tag'),
            field: fc.oneof(oddStrings, fc.constant('name')),
            limit: paging,
            filter: filters,
          },
          { requiredKeys: ['query', 'entity'] },
        )
        .map((body) => ({ action: 'autocomplete', body })),
    );
    await fuzz(
      'search, browse, autocomplete',
      fc.tuple(requests, bodiesAround(fc.constant(null))),
      async ([{ action, body }, junk]) => {
        const path = `/entities?action=${action}`;
        checkAnswer(path, await http.post(path, junk.length % 9 === 0 ? junk : JSON.stringify(body)));
      },
    );
  });

  it('delete, deleteReferences, rollback, searchAcrossEntities and /config: never a 5xx', async () => {
    const requests = fc.oneof(
      fc
        .record(
          {
            urn: fc.oneof({ weight: 4, arbitrary: urnTexts }, { weight: 1, arbitrary: jsonValues }),
            aspectName: fc.oneof(aspectNames, jsonValues),
            startTimeMillis: fc.oneof(extremeNumbers, jsonValues),
            endTimeMillis: fc.oneof(extremeNumbers, jsonValues),
          },
          { requiredKeys: [] },
        )
        .map((body) => ({ path: '/entities?action=delete', body })),
      fc
        .record(
          {
            runId: fc.oneof(oddStrings, fc.constant('no-run-id-provided'), jsonValues),
            dryRun: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: jsonValues }),
            safe: fc.oneof(fc.boolean(), jsonValues),
            hardDelete: fc.oneof(fc.boolean(), jsonValues),
          },
          { requiredKeys: [] },
        )
        .map((body) => ({ path: '/runs?action=rollback', body })),
      fc
        .record(
          {
            urn: fc.oneof({ weight: 4, arbitrary: urnTexts }, { weight: 1, arbitrary: jsonValues }),
            dryRun: fc.oneof({ weight: 3, arbitrary: fc.boolean() }, { weight: 1, arbitrary: jsonValues }),
          },
          { requiredKeys: [] },
        )
        .map((body) => ({ path: '/entities?action=deleteReferences', body })),
      fc
        .record(
          {
            input: fc.oneof(oddStrings, jsonValues),
            entities: fc.oneof(
              fc.array(fc.oneof(fc.constantFrom('dataset', 'dataJob', 'chart'), oddStrings)),
              jsonValues,
            ),
            start: fc.oneof(extremeNumbers, jsonValues),
            count: fc.oneof(fc.integer({ min: -5, max: 20_000 }), jsonValues),
            filter: jsonValues,
          },
          { requiredKeys: [] },
        )
        .map((body) => ({ path: '/entities?action=searchAcrossEntities', body })),
      queryValues.map((verbose) => ({ path: `/config?verbose=${escapeLoosely(verbose)}`, body: undefined })),
    );
    await fuzz(
      'delete, deleteReferences, rollback, searchAcrossEntities, /config',
      fc.tuple(requests, bodiesAround(fc.constant(null))),
      async ([{ path, body }, junk]) => {
        const response =
          body === undefined
            ? await http.get(path)
            : await http.post(path, junk.length % 9 === 0 ? junk : JSON.stringify(body));
        checkAnswer(path, response);
      },
    );
  });

  it("DataHub's toolbox endpoints (listing, runs, versioned reads, deleteAll, lineage, timeline, traces, OpenAPI entities, usage, events): never a 5xx", async () => {
    const sample = 'urn:li:dataset:(urn:li:dataPlatform:hive,fuzz.table,PROD)';
    const actions = [
      '/entities?action=filter',
      '/entities?action=list',
      '/entities?action=listUrns',
      '/entities?action=exists',
      '/entities?action=getTotalEntityCount',
      '/entities?action=batchGetTotalEntityCount',
      '/entities?action=getBrowsePaths',
      // Not setWritable: a body that switched writes off would turn every later write into a 503 (its bad input is
      // e2e/write-switch.e2e.spec.ts's).
      '/entities?action=applyRetention',
      '/entities?action=deleteAll',
      '/entities?action=batchIngest',
      '/entities?action=scrollAcrossEntities',
      '/entities?action=searchAcrossLineage',
      '/entities?action=scrollAcrossLineage',
      '/relationships?action=getLineage',
      '/aspects?action=getCount',
      '/runs?action=list',
      '/runs?action=describe',
      '/usageStats?action=batchIngest',
      '/usageStats?action=query',
      '/usageStats?action=queryRange',
      '/analytics?action=getTimeseriesStats',
      '/platform?action=producePlatformEvent',
      '/openapi/v3/entity/dataset',
      '/openapi/v3/entity/dataset/batchGet',
      '/openapi/v3/entity/scroll',
      '/openapi/v2/entity/batch/dataset',
      '/openapi/entities/v1/',
      '/openapi/v1/trace/write/0123456789abcdef0123456789abcdef',
    ];
    const reads = [
      `/openapi/timeline/v1/${encodeURIComponent(sample)}`,
      '/openapi/relationships/v1/',
      '/openapi/v3/relationship/scroll',
      '/openapi/v1/events/poll',
      '/openapi/v1/registry/models/entity/specifications',
      `/openapi/v3/entity/dataset/${encodeURIComponent(sample)}`,
      '/entities',
      '/entitiesVersionedV2',
    ];
    const queries = fc.dictionary(
      fc.constantFrom(
        'urn',
        'direction',
        'relationshipTypes',
        'categories',
        'startTime',
        'count',
        'start',
        'scrollId',
        'topic',
        'offsetId',
        'limit',
        'ids',
        'aspects',
        'entityType',
        'raw',
        'systemMetadata',
        'query',
        'sort',
      ),
      oddStrings.map(escapeLoosely),
      { maxKeys: 4 },
    );
    const requests = fc.oneof(
      fc.tuple(fc.constant('POST'), fc.constantFrom(...actions), queries, jsonValues),
      fc.tuple(
        fc.constantFrom('PATCH', 'DELETE'),
        fc.constantFrom('/openapi/v3/entity/dataset', reads[5]!),
        queries,
        jsonValues,
      ),
      fc.tuple(fc.constant('DELETE'), fc.constant('/relationships'), queries, fc.constant(undefined)),
      fc.tuple(fc.constant('GET'), fc.constantFrom(...reads), queries, fc.constant(undefined)),
    );
    await fuzz('toolbox', requests, async ([method, path, query, body]) => {
      const parameters = Object.entries(query)
        .map(([name, value]) => `${name}=${value}`)
        .join('&');
      const url = parameters === '' ? path : `${path}${path.includes('?') ? '&' : '?'}${parameters}`;
      const response = await http.send(
        method,
        url,
        method === 'GET' || body === undefined ? undefined : JSON.stringify(body),
        { 'Content-Type': 'application/json' },
      );
      checkAnswer(url, response);
    });
  });

  it('the schema registry, the OpenAPI routes and unknown paths: never a 5xx', async () => {
    const requests = fc.oneof(
      fc.tuple(
        fc.constantFrom('GET', 'POST', 'DELETE', 'PUT'),
        oddStrings.map((subject) => `/schema-registry/api/subjects/${escapeLoosely(subject)}/versions`),
        jsonValues,
      ),
      fc.tuple(
        fc.constant('POST'),
        fc.constant('/schema-registry/api/subjects/MetadataChangeProposal_v1-value/versions'),
        fc.oneof(fc.record({ schema: oddStrings }), jsonValues),
      ),
      fc.tuple(
        fc.constantFrom('GET', 'POST'),
        fc.constantFrom('/openapi/operations/indices/progress', '/openapi/v3/api-docs', '/openapi/nothing'),
        jsonValues,
      ),
      fc.tuple(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
        fc.oneof(
          oddStrings.map((text) => `/${escapeLoosely(text)}`),
          fc.constantFrom('/aspects', '/entities', '/entitiesV2', '/relationships', '/health'),
        ),
        jsonValues,
      ),
    );
    await fuzz('other routes', requests, async ([method, path, body]) => {
      const response = await http.send(
        method,
        path,
        method === 'GET' || method === 'DELETE' ? undefined : JSON.stringify(body),
        {
          'Content-Type': 'application/json',
        },
      );
      checkAnswer(path, response);
    });
  });
});
