/**
 * DataHub's timeline (`GET /openapi/timeline/v1/{urn}`), as `datahub timeline` calls it: a dataset written version by
 * version through `ingestProposal` (schema fields added, dropped and retyped; tags added and removed; an owner; a
 * description; a domain; soft deletion; deprecation), then its timeline read with exactly the request the CLI sends,
 * checked for DataHub's shapes, grouping and semantic versions; then a window, the raw diffs, the categories beyond the
 * CLI's, and bad input. On the shared standalone process: everything is named after the run.
 */
import { randomUUID } from 'node:crypto';
import { eventually, proposalOf, sharedDeployment, TestHttpClient } from '@strata/testing';

const run = `tl${randomUUID().slice(0, 8)}`;
const DATASET = `urn:li:dataset:(urn:li:dataPlatform:hive,${run}.orders,PROD)`;
const OWNER = `urn:li:corpuser:${run}_jdoe`;
const DOMAIN = `urn:li:domain:${run}_sales`;
/** The headers of the CLI's session (`get_session_and_host`). */
const CLI_HEADERS = { 'X-RestLi-Protocol-Version': '2.0.0', 'Content-Type': 'application/json' };

/** Python's `urllib.parse.quote(urn, safe="")`, which the CLI's `Urn.url_encode` is. */
const pythonQuote = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);

const field = (fieldPath: string, nativeDataType: string) => ({
  fieldPath,
  nativeDataType,
  nullable: false,
  type: { type: { 'com.linkedin.schema.StringType': {} } },
});
const schema = (...fields: ReturnType<typeof field>[]) => ({
  schemaName: `${run}.orders`,
  platform: 'urn:li:dataPlatform:hive',
  version: 0,
  hash: '',
  platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
  fields,
});

interface ChangeEventJson {
  readonly entityUrn: string;
  readonly category: string;
  readonly operation: string;
  readonly modifier?: string;
  readonly parameters?: Record<string, unknown>;
  readonly semVerChange?: string;
  readonly description?: string;
}

interface TransactionJson {
  readonly timestamp: number;
  readonly actor: string;
  readonly semVer: string;
  readonly semVerChange: string;
  readonly changeEvents: readonly ChangeEventJson[];
  readonly rawDiff?: readonly { readonly op: string; readonly path: string; readonly value?: unknown }[];
  readonly versionStamp: string;
}

/** What a transaction says, in brief: its semantic version and change, and `OPERATION category modifier` per event. */
const brief = (transaction: TransactionJson) => [
  transaction.semVer,
  transaction.semVerChange,
  transaction.changeEvents.map((event) => `${event.operation} ${event.category} ${event.modifier ?? ''}`.trim()),
];

describe('timeline (standalone)', () => {
  let http: TestHttpClient;

  /** Writes one aspect as the SDK's `emit` does, then waits for the clock to move on, so each write has its instant. */
  async function write(aspect: string, value: unknown): Promise<void> {
    const response = await http.post(
      '/aspects?action=ingestProposal',
      { proposal: proposalOf(DATASET, aspect, value), async: 'false' },
      CLI_HEADERS,
    );
    expect({ status: response.status, body: response.json }).toEqual({ status: 200, body: { value: 'success' } });
    const written = Date.now();
    await eventually(() => {
      expect(Date.now()).toBeGreaterThan(written);
    });
  }

  /** `GET /openapi/timeline/v1/<encoded urn>?<query>`, as the CLI builds it. */
  const timeline = (query: string, urn = DATASET) =>
    http.get(`/openapi/timeline/v1/${pythonQuote(urn)}?${query}`, CLI_HEADERS);

  const transactionsOf = async (query: string): Promise<TransactionJson[]> => {
    const response = await timeline(query);
    expect(response.status).toBe(200);
    return response.json as TransactionJson[];
  };

  beforeAll(async () => {
    http = new TestHttpClient((await sharedDeployment('standalone')).baseUrl);
    await write('schemaMetadata', schema(field('a', 'STRING'), field('b', 'INTEGER')));
    await write('globalTags', { tags: [{ tag: 'urn:li:tag:pii' }] });
    await write('ownership', { owners: [{ owner: OWNER, type: 'TECHNICAL_OWNER' }] });
    await write('globalTags', { tags: [{ tag: 'urn:li:tag:legacy' }] });
    await write('schemaMetadata', schema(field('a', 'VARCHAR(20)'), field('c', 'INTEGER')));
    await write('editableDatasetProperties', { description: 'Orders placed' });
    await write('domains', { domains: [DOMAIN] });
    await write('status', { removed: true });
    await write('deprecation', { deprecated: true, note: 'use orders_v2', actor: 'urn:li:corpuser:datahub' });
  });

  it('answers `datahub timeline -c tag -c ownership -c technical_schema -c documentation` as DataHub does', async () => {
    const transactions = await transactionsOf('categories=TAG,OWNERSHIP,TECHNICAL_SCHEMA,DOCUMENTATION');

    expect(transactions.map(brief)).toEqual([
      [
        '0.0.0-computed',
        'MINOR',
        [
          `ADD TECHNICAL_SCHEMA urn:li:schemaField:(${DATASET},a)`,
          `ADD TECHNICAL_SCHEMA urn:li:schemaField:(${DATASET},b)`,
        ],
      ],
      ['0.1.0-computed', 'MINOR', ['ADD TAG urn:li:tag:pii']],
      ['0.2.0-computed', 'MINOR', [`ADD OWNERSHIP ${OWNER}`]],
      ['0.3.0-computed', 'MINOR', ['ADD TAG urn:li:tag:legacy', 'REMOVE TAG urn:li:tag:pii']],
      [
        '1.0.0-computed',
        'MAJOR',
        [
          `MODIFY TECHNICAL_SCHEMA urn:li:schemaField:(${DATASET},a)`,
          `REMOVE TECHNICAL_SCHEMA urn:li:schemaField:(${DATASET},b)`,
          `ADD TECHNICAL_SCHEMA urn:li:schemaField:(${DATASET},c)`,
        ],
      ],
      ['1.1.0-computed', 'MINOR', ['ADD DOCUMENTATION']],
    ]);
    // Oldest first, one instant each; what the CLI prints of each is there.
    const timestamps = transactions.map((transaction) => transaction.timestamp);
    expect(timestamps).toEqual([...timestamps].sort((left, right) => left - right));
    expect(new Set(timestamps).size).toBe(timestamps.length);
    for (const transaction of transactions) {
      expect(transaction.actor).toMatch(/^urn:li:corpuser:/);
      expect(transaction.versionStamp).toMatch(/^([A-Za-z][A-Za-z0-9]*:\d+;)*[A-Za-z][A-Za-z0-9]*:\d+$/);
      expect(transaction.rawDiff).toBeUndefined();
      for (const event of transaction.changeEvents) {
        expect(event).toEqual(
          expect.objectContaining({
            entityUrn: expect.any(String),
            category: expect.any(String),
            operation: expect.any(String),
            semVerChange: expect.any(String),
            description: expect.any(String),
          }),
        );
      }
    }
    const [first, , , , retyped, documented] = transactions;
    expect(first?.versionStamp.split(';')).toEqual(expect.arrayContaining(['datasetKey:0', 'schemaMetadata:1']));
    expect(retyped?.versionStamp.split(';')).toEqual(
      expect.arrayContaining(['datasetKey:0', 'globalTags:0', 'ownership:0', 'schemaMetadata:0']),
    );
    expect(retyped?.changeEvents[0]).toEqual({
      entityUrn: DATASET,
      category: 'TECHNICAL_SCHEMA',
      operation: 'MODIFY',
      modifier: `urn:li:schemaField:(${DATASET},a)`,
      parameters: {
        fieldPath: 'a',
        fieldUrn: `urn:li:schemaField:(${DATASET},a)`,
        nullable: false,
        modificationCategory: 'OTHER',
      },
      semVerChange: 'MAJOR',
      description:
        "A backwards incompatible change due to native datatype of the field 'a' changed from 'STRING' to 'VARCHAR(20)'.",
    });
    expect(retyped?.changeEvents[1]?.description).toBe("A backwards incompatible change due to removal of field: 'b'.");
    expect(documented?.changeEvents).toEqual([
      {
        entityUrn: DATASET,
        category: 'DOCUMENTATION',
        operation: 'ADD',
        semVerChange: 'MINOR',
        description: `Documentation for '${DATASET}' has been added: 'Orders placed'.`,
      },
    ]);
    expect(transactions[2]?.changeEvents[0]).toEqual({
      entityUrn: DATASET,
      category: 'OWNERSHIP',
      operation: 'ADD',
      modifier: OWNER,
      parameters: { ownerUrn: OWNER, ownerType: 'TECHNICAL_OWNER' },
      semVerChange: 'MINOR',
      description: `'${run}_jdoe' added as a \`TECHNICAL_OWNER\` of '${DATASET}'.`,
    });
  });

  it('versions each category set on its own: TAG alone counts from the schema written first', async () => {
    const transactions = await transactionsOf('categories=TAG');
    expect(transactions.map(brief)).toEqual([
      ['0.1.0-computed', 'MINOR', ['ADD TAG urn:li:tag:pii']],
      ['0.2.0-computed', 'MINOR', ['ADD TAG urn:li:tag:legacy', 'REMOVE TAG urn:li:tag:pii']],
    ]);
  });

  it('takes OWNER for OWNERSHIP, and category names in any case, repeated or listed', async () => {
    expect((await transactionsOf('categories=OWNER')).map(brief)).toEqual([
      ['0.0.0-computed', 'MINOR', [`ADD OWNERSHIP ${OWNER}`]],
    ]);
    const listed = await transactionsOf('categories=tag,technical_schema');
    const repeated = await transactionsOf('categories=TAG&categories=Technical-Schema');
    expect(repeated).toEqual(listed);
  });

  it('with `--raw` (`&raw=True`), carries each transaction’s raw diff as RFC 6902 operations', async () => {
    const transactions = await transactionsOf('categories=TAG&raw=True');
    expect(transactions[0]?.rawDiff).toContainEqual({ op: 'add', path: '/tags', value: [{ tag: 'urn:li:tag:pii' }] });
    expect(transactions[1]?.rawDiff).toContainEqual({
      op: 'replace',
      path: '/tags/0/tag',
      value: 'urn:li:tag:legacy',
    });
  });

  it('reads a window: versions written in it, compared with the one before, versioned from its first instant', async () => {
    const all = await transactionsOf('categories=TAG,TECHNICAL_SCHEMA');
    const retagged = all.find((transaction) =>
      transaction.changeEvents.some((e) => e.modifier === 'urn:li:tag:legacy'),
    );
    const retyped = all.find((transaction) => transaction.semVerChange === 'MAJOR');
    const windowed = await transactionsOf(
      `categories=TAG,TECHNICAL_SCHEMA&startTime=${retagged!.timestamp}&endTime=${retyped!.timestamp + 1}`,
    );
    expect(windowed.map(brief)).toEqual([
      ['0.0.0-computed', 'MINOR', ['ADD TAG urn:li:tag:legacy', 'REMOVE TAG urn:li:tag:pii']],
      [
        '1.0.0-computed',
        'MAJOR',
        [
          `MODIFY TECHNICAL_SCHEMA urn:li:schemaField:(${DATASET},a)`,
          `REMOVE TECHNICAL_SCHEMA urn:li:schemaField:(${DATASET},b)`,
          `ADD TECHNICAL_SCHEMA urn:li:schemaField:(${DATASET},c)`,
        ],
      ],
    ]);
    expect(await transactionsOf(`categories=TAG&startTime=0&endTime=${all[0]!.timestamp}`)).toEqual([]);
  });

  it('describes the domain, soft deletion and deprecation in their own categories', async () => {
    const transactions = await transactionsOf('categories=DOMAIN,LIFECYCLE,DEPRECATION');
    expect(transactions.map(brief)).toEqual([
      ['0.0.0-computed', 'MINOR', [`ADD DOMAIN ${DOMAIN}`]],
      ['0.1.0-computed', 'MINOR', ['SOFT_DELETE LIFECYCLE']],
      ['0.2.0-computed', 'MINOR', ['MODIFY DEPRECATION']],
    ]);
    expect(transactions[0]?.changeEvents[0]?.parameters).toEqual({ domainUrn: DOMAIN });
    expect(transactions[2]?.changeEvents[0]?.parameters).toEqual({ status: 'DEPRECATED' });
  });

  it('answers [] for an entity never written, and for categories none of its aspects feeds', async () => {
    const unwritten = await timeline('categories=TAG', `urn:li:dataset:(urn:li:dataPlatform:hive,${run}.nothing,PROD)`);
    expect({ status: unwritten.status, body: unwritten.json }).toEqual({ status: 200, body: [] });
    expect(await transactionsOf('categories=RUN')).toEqual([]);
  });

  it.each([
    ['an unknown category', 'categories=TAG,COLOR', DATASET, /categories/],
    ['no category', 'startTime=0', DATASET, /categories/],
    ['a start that is no number', 'categories=TAG&startTime=yesterday', DATASET, /startTime/],
    ['a malformed URN', 'categories=TAG', 'not-a-urn', /URN/],
    ['an unknown entity type', 'categories=TAG', 'urn:li:noSuchEntity:x', /noSuchEntity/],
  ])('refuses %s with a 400 in the OpenAPI error body', async (_case, query, urn, message) => {
    const response = await timeline(query, urn);
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ error: expect.stringMatching(message) });
  });
});
