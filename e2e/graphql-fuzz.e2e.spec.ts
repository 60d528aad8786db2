/**
 * Hostile input to the GraphQL API, against a standalone process of its own (bodies capped at 1 MiB): generated
 * documents — random text, and random operations walked from the served schema (found by introspection, over HTTP)
 * with arguments of the right and the wrong types — deep nesting, thousands of aliases and fields, documents over each
 * limit, wrong variables, broken JSON, every content type, GET with a mutation, other methods, oversized bodies. Every
 * answer must be GraphQL's: never a 5xx (nor a field error with a 5xx code), the status graphql-over-HTTP gives (200,
 * 400, 405, 406, 413, 415) and a JSON body with `errors` or `data`. While it runs, `/health` is asked again and again
 * and must keep answering. Seeded: a failure names its seed, replayed with `STRATA_FUZZ_SEED=<seed>`.
 */
import fc from 'fast-check';
import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  isUnionType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import {
  proposalOf,
  scaled,
  startStandalone,
  TestHttpClient,
  type StandaloneProcess,
  type TestResponse,
} from '@strata/testing';
import { fixtureDocument } from './support/graphql-documents';

const MAX_BODY_BYTES = 1024 * 1024;
let strata: StandaloneProcess;
let http: TestHttpClient;
let schema: GraphQLSchema;
const casesRun: Record<string, number> = {};

/** The health probe: asks `/health` one request after another until stopped, counting what it hears. */
const health = { answered: 0, failed: [] as string[], running: false, done: Promise.resolve() };

const dataset = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,fuzz.${name},PROD)`;

beforeAll(async () => {
  strata = await startStandalone({ env: { MAX_BODY_BYTES: String(MAX_BODY_BYTES) } });
  http = new TestHttpClient(strata.baseUrl);
  // A little to find: two datasets with lineage, a tag on one.
  const written = await http.post(
    '/aspects?action=ingestProposalBatch',
    {
      proposals: [
        proposalOf(dataset('a'), 'datasetProperties', { description: 'fuzz a', customProperties: { k: 'v' } }),
        proposalOf(dataset('b'), 'upstreamLineage', {
          upstreams: [
            { auditStamp: { time: 0, actor: 'urn:li:corpuser:datahub' }, dataset: dataset('a'), type: 'COPY' },
          ],
        }),
        proposalOf('urn:li:tag:fuzz', 'tagProperties', { name: 'fuzz' }),
        proposalOf(dataset('a'), 'globalTags', { tags: [{ tag: 'urn:li:tag:fuzz' }] }),
      ],
    },
    { 'X-DataHub-Sync-Index-Update': 'true' },
  );
  expect(written.status).toBe(200);
  const introspection = await http.post('/api/graphql', { query: getIntrospectionQuery() });
  expect(introspection.status).toBe(200);
  schema = buildClientSchema((introspection.json as { data: IntrospectionQuery }).data);
  health.running = true;
  health.done = (async () => {
    while (health.running) {
      try {
        const response = await fetch(`${strata.baseUrl}/health`, { signal: AbortSignal.timeout(10_000) });
        await response.text();
        if (response.status === 200) health.answered += 1;
        else health.failed.push(`status ${response.status}`);
      } catch (error) {
        health.failed.push(String(error));
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
}, 60_000);

afterAll(async () => {
  health.running = false;
  await health.done;
  await strata.stop();
  strata.cleanUp();
  const total = Object.values(casesRun).reduce((sum, count) => sum + count, 0);
  console.log(`GraphQL fuzz: ${total} generated requests, by property: ${JSON.stringify(casesRun)}`);
});

// --- What every answer must be -----------------------------------------------------------------------------------

/** The statuses graphql-over-HTTP answers with. */
const STATUSES = new Set([200, 400, 405, 406, 413, 415]);

interface Body {
  readonly data?: unknown;
  readonly errors?: readonly { message?: unknown; extensions?: { code?: unknown } }[];
}

/**
 * Never a 5xx; a status of graphql-over-HTTP; a JSON body with `errors` (non-empty, each with a message) or `data`;
 * no error with a code of 500 or more (an unexpected failure of a resolver, masked). Throws naming what is wrong.
 */
function checkAnswer(what: string, response: TestResponse): Body {
  const context = `${what} answered ${response.status}: ${response.text.slice(0, 400)}`;
  if (response.status >= 500 || !STATUSES.has(response.status)) throw new Error(context);
  const body: unknown = response.json;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new Error(`no JSON body: ${context}`);
  if (!('data' in body) && !('errors' in body)) throw new Error(`neither data nor errors: ${context}`);
  const answer = body as Body;
  if ('errors' in answer) {
    if (!Array.isArray(answer.errors) || answer.errors.length === 0) throw new Error(`empty errors: ${context}`);
    for (const error of answer.errors) {
      if (typeof error.message !== 'string') throw new Error(`an error without a message: ${context}`);
      const code = error.extensions?.code;
      if (typeof code === 'number' && code >= 500) throw new Error(`an internal error: ${context}`);
    }
  }
  if (response.status !== 200 && !('errors' in answer)) throw new Error(`a refusal without errors: ${context}`);
  return answer;
}

const post = (body: unknown, headers: Record<string, string> = {}) => http.post('/api/graphql', body, headers);

/** The document's answer, checked; with the status expected when given. */
async function expectAnswer(
  what: string,
  response: Promise<TestResponse>,
  status?: number,
): Promise<{ body: Body; response: TestResponse }> {
  const answered = await response;
  const body = checkAnswer(what, answered);
  if (status !== undefined) expect({ what, status: answered.status }).toEqual({ what, status });
  return { body, response: answered };
}

const messagesOf = (body: Body) => (body.errors ?? []).map((error) => String(error.message));

// --- Properties ------------------------------------------------------------------------------------------------------

const replaySeed = process.env['STRATA_FUZZ_SEED'] === undefined ? undefined : Number(process.env['STRATA_FUZZ_SEED']);
const CASES = scaled(150, 3_000);
const SECONDS = scaled(6, 60);

async function fuzz<T>(name: string, arbitrary: fc.Arbitrary<T>, check: (value: T) => Promise<void>): Promise<void> {
  const details = await fc.check(fc.asyncProperty(arbitrary, check), {
    seed: replaySeed ?? 23,
    numRuns: CASES,
    interruptAfterTimeLimit: SECONDS * 1_000,
    markInterruptAsFailure: false,
  });
  casesRun[name] = details.numRuns;
  if (details.failed) {
    throw new Error(
      `${name} (seed ${details.seed}, path ${details.counterexamplePath ?? ''}): ${String(details.errorInstance)}\n` +
        `counterexample (cut): ${JSON.stringify(details.counterexample).slice(0, 1_500)}`,
    );
  }
  expect(details.numRuns).toBeGreaterThan(20);
}

const words = fc.constantFrom(
  'query',
  'mutation',
  'subscription',
  'fragment',
  'on',
  '...',
  '{',
  '}',
  '(',
  ')',
  '[',
  ']',
  ':',
  '$',
  '@',
  '!',
  '=',
  '|',
  '&',
  '"',
  '"""',
  '#',
  'dataset',
  'urn',
  'searchAcrossEntities',
  'input',
  '__typename',
  '__schema',
  '__type',
  'scrollAcrossLineage',
  'true',
  'null',
  '1',
  '-0.5e10',
  '"urn:li:dataset:("',
  'Dataset',
  'Entity',
  '\u0000',
  '\uFFFF',
);

/** Text made of GraphQL's tokens and odd characters, in random order. */
const randomText = fc.oneof(
  fc.array(words, { maxLength: 60 }).map((tokens) => tokens.join(' ')),
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 100 }),
);

/** URNs the resolvers are given: real ones, near misses, garbage. */
const urns = fc.constantFrom(
  dataset('a'),
  dataset('b'),
  'urn:li:tag:fuzz',
  'urn:li:chart:(looker,nothing)',
  'urn:li:corpuser:datahub',
  'urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:hive,fuzz.a,PROD),id)',
  'urn:li:dataset:(urn:li:dataPlatform:hive,unbalanced',
  'urn:li:spaceship:enterprise',
  'not a urn',
  '',
  'urn:li:dataset:(urn:li:dataPlatform:hive,ü\u0000,PROD)',
);

const stringLiteral = fc.oneof(
  { weight: 3, arbitrary: urns },
  { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.constantFrom('*', 'fuzz', 'a AND b', 'field:value', '"', '\\', '(', '*'.repeat(100)) },
);

/** A literal of `type`, usually of its type, now and then of another (GraphQL must refuse it, not fail). */
function literalOf(type: GraphQLInputType, depth: number): fc.Arbitrary<string> {
  const wrong = fc.constantFrom(
    '"wrong"',
    '12',
    '-1',
    'true',
    'null',
    '[]',
    '{}',
    'NOT_A_VALUE',
    '1e400',
    '99999999999999999999',
  );
  const right = ((): fc.Arbitrary<string> => {
    const inner = isNonNullType(type) ? type.ofType : type;
    if (isListType(inner)) {
      return fc
        .array(literalOf(inner.ofType, depth + 1), { maxLength: depth > 2 ? 0 : 3 })
        .map((items) => `[${items.join(', ')}]`);
    }
    if (isEnumType(inner)) return fc.constantFrom(...inner.getValues().map((value) => value.name));
    if (isInputObjectType(inner)) {
      if (depth > 3) return fc.constant('{}');
      const fields = Object.values(inner.getFields());
      return fc
        .tuple(
          ...fields.map((field) =>
            fc.option(literalOf(field.type, depth + 1), { freq: isNonNullType(field.type) ? 20 : 2, nil: undefined }),
          ),
        )
        .map(
          (values) =>
            `{${fields.flatMap((field, index) => (values[index] === undefined ? [] : [`${field.name}: ${values[index]}`])).join(', ')}}`,
        );
    }
    switch (inner.name) {
      case 'Int':
        return fc.oneof(fc.integer({ min: -5, max: 10_000 }), fc.integer()).map(String);
      case 'Long':
        return fc.oneof(fc.integer({ min: 0, max: 2_000_000_000 }), fc.constant(Number.MAX_SAFE_INTEGER)).map(String);
      case 'Float':
        return fc
          .double({ noNaN: true, noDefaultInfinity: true })
          .map((value) => String(value).replace('Infinity', '1'));
      case 'Boolean':
        return fc.boolean().map(String);
      default:
        return stringLiteral.map((text) => JSON.stringify(text));
    }
  })();
  return fc.oneof({ weight: 12, arbitrary: right }, { weight: 1, arbitrary: wrong });
}

/** Arguments of `field`: the required ones nearly always, the others now and then. */
function argumentsOf(field: GraphQLField<unknown, unknown>): fc.Arbitrary<string> {
  if (field.args.length === 0) return fc.constant('');
  return fc
    .tuple(
      ...field.args.map((argument) =>
        fc.option(literalOf(argument.type, 0), { freq: isNonNullType(argument.type) ? 30 : 2, nil: undefined }),
      ),
    )
    .map((values) => {
      const given = field.args.flatMap((argument, index) =>
        values[index] === undefined ? [] : [`${argument.name}: ${values[index]}`],
      );
      return given.length === 0 ? '' : `(${given.join(', ')})`;
    });
}

/** A selection set of `type`, at most `depth` levels deep: random fields, arguments, aliases and inline fragments. */
function selectionOf(type: GraphQLNamedType, depth: number): fc.Arbitrary<string> {
  if (!isCompositeType(type) || depth <= 0) return fc.constant('{ __typename }');
  const fragments = isUnionType(type) ? type.getTypes() : isInterfaceType(type) ? schema.getPossibleTypes(type) : [];
  const fields = isUnionType(type) ? [] : Object.values(type.getFields());
  const oneField: fc.Arbitrary<string> =
    fields.length === 0
      ? fc.constant('__typename')
      : fc.integer({ min: 0, max: fields.length - 1 }).chain((index) => {
          const field = fields[index]!;
          const named = getNamedType(field.type);
          return fc
            .tuple(
              fc.oneof(
                { weight: 8, arbitrary: fc.constant(undefined) },
                { weight: 1, arbitrary: fc.constantFrom('a', 'b', 'x1') },
              ),
              argumentsOf(field),
              isLeafType(named) ? fc.constant('') : selectionOf(named, depth - 1),
            )
            .map(
              ([alias, args, selection]) =>
                `${alias === undefined ? '' : `${alias}${index}: `}${field.name}${args} ${selection}`,
            );
        });
  const oneFragment: fc.Arbitrary<string> =
    fragments.length === 0
      ? oneField
      : fc
          .constantFrom(...fragments)
          .chain((member) => selectionOf(member, depth - 1).map((selection) => `... on ${member.name} ${selection}`));
  return fc
    .array(fc.oneof({ weight: 4, arbitrary: oneField }, { weight: 1, arbitrary: oneFragment }), {
      minLength: 1,
      maxLength: 4,
    })
    .map((selections) => `{ ${selections.join(' ')} }`);
}

describe('generated documents', () => {
  it('random text as a document: GraphQL’s errors, never a 5xx', async () => {
    await fuzz('random text', randomText, async (query) => {
      await expectAnswer(query, post({ query }));
    });
  });

  it('random operations walked from the served schema, arguments of right and wrong types: never a 5xx', async () => {
    const query = schema.getQueryType()!;
    const mutation = schema.getMutationType()!;
    const operations = fc.oneof(
      { weight: 5, arbitrary: selectionOf(query, 4).map((selection) => `query fuzz ${selection}`) },
      { weight: 1, arbitrary: selectionOf(mutation, 3).map((selection) => `mutation fuzz ${selection}`) },
    );
    let executed = 0;
    await fuzz('schema walk', operations, async (document) => {
      const { body } = await expectAnswer(document, post({ query: document }));
      if (body.data !== undefined && body.data !== null) executed += 1;
    });
    // Many documents are valid, so that the resolvers run (a generator that only made invalid ones would test nothing):
    // about a third with the schema as it is; a quarter is the floor.
    console.log(`GraphQL fuzz: ${executed} of the generated operations were valid and ran`);
    expect(executed).toBeGreaterThan((casesRun['schema walk'] ?? 0) / 4);
  });

  it('DataHub’s documents with random variables (wrong types, missing, extra): never a 5xx', async () => {
    const documents = fc.constantFrom(
      fixtureDocument('delete-by-filter'),
      fixtureDocument('lineage-cli'),
      fixtureDocument('search-cli'),
      fixtureDocument('ingest-list-source-runs'),
      fixtureDocument('graph-input-type-fields'),
      fixtureDocument('get-results-by-filter'),
    );
    const variables = fc.oneof(
      fc.dictionary(
        fc.constantFrom(
          'input',
          'query',
          'types',
          'orFilters',
          'batchSize',
          'scrollId',
          'count',
          'start',
          'name',
          'skipCache',
        ),
        fc.jsonValue({ maxDepth: 3 }),
        { maxKeys: 6 },
      ),
      fc.jsonValue({ maxDepth: 2 }),
      fc.record({
        input: fc.record({
          urn: urns,
          direction: fc.constantFrom('UPSTREAM', 'DOWNSTREAM', 'SIDEWAYS', 3),
          count: fc.oneof(fc.integer(), fc.constant(10_001)),
          orFilters: fc.jsonValue({ maxDepth: 3 }),
        }),
      }),
    );
    await fuzz(
      'fixture variables',
      fc.tuple(documents, variables, fc.option(fc.string(), { nil: undefined })),
      async ([query, vars, operationName]) => {
        await expectAnswer(
          'a fixture with random variables',
          post({ query, variables: vars, ...(operationName === undefined ? {} : { operationName }) }),
        );
      },
    );
  });

  it('random JSON bodies and broken JSON: GraphQL’s errors, 400', async () => {
    const bodies = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
      fc
        .record({ query: fc.jsonValue({ maxDepth: 2 }), variables: fc.jsonValue({ maxDepth: 2 }) })
        .map((value) => JSON.stringify(value)),
      fc.string({ maxLength: 100 }),
      fc.constantFrom('', '{', '{"query": ', '{"query": "{ __typename }"', 'null', '[]', '"{ __typename }"', '\u0000'),
    );
    await fuzz('bodies', bodies, async (body) => {
      await expectAnswer(
        `body ${body.slice(0, 100)}`,
        http.send('POST', '/api/graphql', body, { 'Content-Type': 'application/json' }),
      );
    });
  });
});

// --- Each hostile case by hand ---------------------------------------------------------------------------------------

describe('documents over the limits', () => {
  it('deep nesting: refused with the depth limit’s message, a 1,000-level one too', async () => {
    const deep = `{ container(urn: "u") { ${'container { '.repeat(30)}urn${' }'.repeat(30)} } }`;
    const { body } = await expectAnswer('30 levels deep', post({ query: deep }));
    expect(body.data).toBeUndefined();
    expect(messagesOf(body).join()).toContain('Queries may nest at most');
    const absurd = `{ ${'a { '.repeat(1_000)}b${' }'.repeat(1_000)} }`;
    await expectAnswer('1,000 levels deep', post({ query: absurd }));
  });

  it('huge alias counts: refused with the alias limit’s message', async () => {
    const aliased = `{ ${Array.from({ length: 2_000 }, (_, index) => `a${index}: appConfig { appVersion }`).join(' ')} }`;
    const { body } = await expectAnswer('2,000 aliases', post({ query: aliased }));
    expect(messagesOf(body).join()).toContain('Queries may use at most');
  });

  it('a costly selection: refused with the cost limit’s message', async () => {
    const leaf = 'urn properties { name description qualifiedName externalUrl }';
    const copy = (index: number) =>
      `c${index}: container(urn: "u") { ${'container { '.repeat(16)}${leaf}${' }'.repeat(16)} }`;
    const costly = `{ ${Array.from({ length: 40 }, (_, index) => copy(index)).join(' ')} }`;
    const { body } = await expectAnswer('a costly document', post({ query: costly }));
    expect(messagesOf(body).join()).toContain('The query costs more than the limit');
  });

  it('a 10,000-field document: answered (graphql-js stops validating it), and 10,000 distinct fields refused', async () => {
    const same = `{ ${Array.from({ length: 10_000 }, () => '__typename').join(' ')} }`;
    await expectAnswer('10,000 __typename', post({ query: same }));
    const distinct = `{ ${Array.from({ length: 10_000 }, (_, index) => `f${index}`).join(' ')} }`;
    const { body } = await expectAnswer('10,000 unknown fields', post({ query: distinct }));
    expect(body.errors?.length).toBeGreaterThan(0);
    const aliased = `{ ${Array.from({ length: 10_000 }, (_, index) => `t${index}: __typename`).join(' ')} }`;
    const tokens = await expectAnswer('10,000 aliased fields (30,000 tokens)', post({ query: aliased }));
    expect(messagesOf(tokens.body).join()).toContain('tokens');
  });
});

describe('bad requests', () => {
  it('variables of the wrong type, missing, or not an object', async () => {
    const query = 'query($u: String!) { dataset(urn: $u) { urn } }';
    for (const variables of [{ u: 5 }, { u: {} }, { u: [dataset('a')] }, {}, { u: null }]) {
      const { body } = await expectAnswer(`variables ${JSON.stringify(variables)}`, post({ query, variables }));
      expect(body.errors?.[0]?.message).toMatch(/Variable "\$u"/);
    }
    for (const variables of [[1], 'u', 5]) {
      await expectAnswer(`variables ${JSON.stringify(variables)}`, post({ query, variables }), 400);
    }
    const input = 'query($i: ScrollAcrossLineageInput!) { scrollAcrossLineage(input: $i) { total } }';
    const { body } = await expectAnswer(
      'an enum out of range',
      post({ query: input, variables: { i: { urn: dataset('a'), direction: 'SIDEWAYS' } } }),
    );
    expect(body.errors?.[0]?.message).toContain('SIDEWAYS');
  });

  it('operation names: of the wrong type, unknown, missing among several', async () => {
    const two = 'query one { __typename } query two { __typename }';
    await expectAnswer('operationName 5', post({ query: two, operationName: 5 }), 400);
    await expectAnswer('unknown operationName', post({ query: two, operationName: 'three' }));
    await expectAnswer('no operationName among two', post({ query: two }));
    const { body } = await expectAnswer('the chosen one', post({ query: two, operationName: 'two' }), 200);
    expect(body.data).toEqual({ __typename: 'Query' });
  });

  it('subscriptions, batches and the wrong body shape', async () => {
    await expectAnswer('a subscription', post({ query: 'subscription { dataset(urn: "x") { urn } }' }));
    await expectAnswer('a batch', post([{ query: '{ __typename }' }]), 400);
    await expectAnswer('no query', post({ variables: {} }), 400);
    await expectAnswer('query not a string', post({ query: { a: 1 } }), 400);
  });

  it('wrong content types: 415 (or 400 for a body that is not JSON), GraphQL’s errors either way', async () => {
    for (const contentType of [
      'text/plain',
      'application/graphql',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=latin1',
      'application/xml',
    ]) {
      const response = await http.send('POST', '/api/graphql', '{"query":"{ __typename }"}', {
        'Content-Type': contentType,
      });
      checkAnswer(`content type ${contentType}`, response);
      expect([400, 415]).toContain(response.status);
    }
    const none = await http.send('POST', '/api/graphql', '{"query":"{ __typename }"}', {});
    checkAnswer('no content type', none);
    expect([400, 415]).toContain(none.status);
  });

  it('an Accept nobody serves: 406, or JSON all the same', async () => {
    const response = await post({ query: '{ __typename }' }, { Accept: 'text/html' });
    checkAnswer('Accept text/html', response);
    const strict = await post({ query: '{ nothing }' }, { Accept: 'application/graphql-response+json' });
    checkAnswer('an invalid document for a graphql-response+json client', strict);
    expect(strict.status).toBe(400);
  });

  it('GET: a query answers, a mutation is refused with 405, and so are other methods', async () => {
    const get = (query: string, extra = '') => http.get(`/api/graphql?query=${encodeURIComponent(query)}${extra}`);
    const { body } = await expectAnswer('GET a query', get('{ __typename }'), 200);
    expect(body.data).toEqual({ __typename: 'Query' });
    await expectAnswer('GET a mutation', get(`mutation { unsetDomain(entityUrn: "${dataset('a')}") }`), 405);
    await expectAnswer('GET without a query', http.get('/api/graphql'), 400);
    await expectAnswer('GET with variables that are not JSON', get('{ __typename }', '&variables=%7Bbad'), 400);
    await expectAnswer(
      'GET on the web tier’s path',
      http.get(`/api/v2/graphql?query=${encodeURIComponent('{ __typename }')}`),
      200,
    );
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      await expectAnswer(
        method,
        http.send(method, '/api/graphql', '{"query":"{ __typename }"}', { 'Content-Type': 'application/json' }),
        405,
      );
    }
  });

  it('an oversized body: 413 in GraphQL’s error body', async () => {
    const big = JSON.stringify({ query: '{ __typename }', variables: { pad: 'x'.repeat(MAX_BODY_BYTES) } });
    const { body } = await expectAnswer('a body over the limit', post(big), 413);
    expect(messagesOf(body).join()).toContain(`${MAX_BODY_BYTES}`);
    const longQuery = `{ __typename } ${'#'.repeat(MAX_BODY_BYTES)}`;
    await expectAnswer('a query over the limit', post({ query: longQuery }), 413);
  });
});

describe('health while the fuzzing ran', () => {
  it('answered /health throughout, and every time', async () => {
    // One more round of load, with the probe running beside it.
    const before = health.answered;
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        post({
          query: `{ ${Array.from({ length: 10_000 }, () => '__typename').join(' ')} }`,
          operationName: index % 2 === 0 ? undefined : 'x',
        }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(health.failed).toEqual([]);
    expect(health.answered).toBeGreaterThan(before);
    expect(health.answered).toBeGreaterThan(20);
    expect((await http.get('/health')).status).toBe(200);
  });
});
