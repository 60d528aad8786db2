/**
 * The mutations of the GraphQL API, run through the executable schema against a catalog held in memory: its reads
 * answer as the writer's routes answer (`exists`, `GET /entitiesV2`), and its submitter applies proposals as the
 * writer decides them — PATCH through the model's `applyAspectPatch`, `If-Version-Match` compared with the stored
 * version, each aspect validated — so that each test states what the aspect holds after the mutation. Privileges are
 * decided by the real authorizer on DataHub's default policies (root may do anything; other users read).
 */
import DataLoader from 'dataloader';
import { execute, parse, type ExecutionResult, type GraphQLError } from 'graphql';
import { DEFAULT_POLICIES, type Policy } from '@strata/auth';
import type { RequestContext, RouteCall } from '@strata/http';
import {
  applyAspectPatch,
  errorFromCode,
  ForbiddenError,
  NotFoundError,
  parseUrn,
  StrataError,
  UNKNOWN_ACTOR_URN,
  type JsonObject,
  type ValidatedProposal,
} from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import { readGraphqlSchema } from '@strata/schemas';
import { Authorizer } from '../../auth/authorizer';
import type { ProposalSubmitter, Submission, SubmittedProposal } from '../../ingest/proposal-submitter';
import type { GraphqlContext, LoadedEntity } from '../context';
import { adaptingFieldResolver, executableSchema } from '../schema';
import { mutationsResolvers } from './mutations';

const registry = testEntityRegistry();
const schema = executableSchema(
  readGraphqlSchema().map((file) => file.text),
  [mutationsResolvers],
);
const NOW = 1_700_000_000_000;
const ROOT = 'urn:li:corpuser:datahub';
const JDOE = 'urn:li:corpuser:jdoe';
/** A user whom a policy grants EDIT_ENTITY_TAGS on every entity, and nothing else beyond reading. */
const TAGGER = 'urn:li:corpuser:tagger';

const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:hive,orders,PROD)';
const OTHER = 'urn:li:dataset:(urn:li:dataPlatform:hive,customers,PROD)';
const MISSING = 'urn:li:dataset:(urn:li:dataPlatform:hive,missing,PROD)';
const PII = 'urn:li:tag:pii';
const GOLD = 'urn:li:tag:gold';
const TERM = 'urn:li:glossaryTerm:revenue';
const DOMAIN = 'urn:li:domain:finance';

interface Stored {
  value: JsonObject;
  version: number;
}

/** The writer's rules, as far as these mutations meet them, over aspects held in memory. */
class Catalog {
  readonly aspects = new Map<string, Map<string, Stored>>();
  readonly submissions: { proposals: ValidatedProposal[]; submission: Submission }[] = [];
  readonly calls: RouteCall[] = [];
  /** Runs once, right before the next submission applies: another writer getting in between a read and a write. */
  interleave: (() => void) | undefined;
  /** What the token routes answer to `context.call`. */
  answerCall: (call: RouteCall) => unknown = () => {
    throw new Error('no route call expected');
  };

  /** An entity that exists: its key aspect stored, and these aspects. */
  entity(urn: string, aspects: Readonly<Record<string, JsonObject>> = {}): this {
    const parsed = parseUrn(urn);
    const spec = registry.entity(parsed.entityType);
    if (spec === undefined) throw new Error(`no entity type ${parsed.entityType}`);
    this.put(urn, spec.keyAspect.name, spec.keyFromUrn(parsed));
    for (const [name, value] of Object.entries(aspects)) this.put(urn, name, value);
    return this;
  }

  put(urn: string, aspect: string, value: JsonObject): void {
    const entity = this.aspects.get(urn) ?? new Map<string, Stored>();
    entity.set(aspect, { value, version: (entity.get(aspect)?.version ?? 0) + 1 });
    this.aspects.set(urn, entity);
  }

  value(urn: string, aspect: string): JsonObject | undefined {
    return this.aspects.get(urn)?.get(aspect)?.value;
  }

  writes(): ValidatedProposal[] {
    return this.submissions.flatMap((entry) => entry.proposals);
  }

  private exists(urn: string): boolean {
    const spec = registry.entity(parseUrn(urn).entityType);
    return spec !== undefined && this.aspects.get(urn)?.has(spec.keyAspect.name) === true;
  }

  readonly system = (call: RouteCall): Promise<unknown> => {
    if (call.method === 'POST' && call.resource === '/entities' && call.action === 'exists') {
      return Promise.resolve({ value: this.exists((call.body as { urn: string }).urn) });
    }
    if (call.method === 'GET' && call.resource === '/entitiesV2') {
      const ids = call.query?.['ids'] as string[];
      const wanted = call.query?.['aspects'] as string[];
      const results: Record<string, unknown> = {};
      for (const urn of ids) {
        const aspects: Record<string, unknown> = {};
        for (const [name, stored] of this.aspects.get(urn) ?? []) {
          if (!wanted.includes(name)) continue;
          aspects[name] = { value: stored.value, version: 0, systemMetadata: { version: String(stored.version) } };
        }
        results[urn] = { urn, aspects };
      }
      return Promise.resolve({ results });
    }
    return Promise.resolve(this.answerCall(call));
  };

  readonly call = (call: RouteCall): Promise<unknown> => {
    this.calls.push(call);
    return Promise.resolve().then(() => this.answerCall(call));
  };

  readonly submitter = {
    submit: (proposals: readonly SubmittedProposal[], submission: Submission) => {
      const applied = proposals as readonly ValidatedProposal[];
      this.submissions.push({ proposals: [...applied], submission });
      const interleave = this.interleave;
      this.interleave = undefined;
      interleave?.();
      const outcomes = applied.map((proposal, index) => ({ index, ...this.apply(proposal) }));
      const refused = outcomes.filter((outcome) => outcome.status === 'REJECTED');
      const first = refused[0];
      if (first === undefined) return Promise.resolve({ outcomes: [], proposalIds: [], skippedIndexing: [] });
      if (outcomes.length === 1) return Promise.reject(errorFromCode(first.code ?? 'validation', first.error ?? ''));
      return Promise.reject(errorFromCode(first.code ?? 'validation', 'refused', { outcomes }));
    },
  } as unknown as ProposalSubmitter;

  private apply(proposal: ValidatedProposal): { status: string; code?: string; error?: string } {
    const urn = proposal.urn.toString();
    const name = proposal.aspect.name;
    const stored = this.aspects.get(urn)?.get(name);
    const expected = proposal.headers['If-Version-Match'];
    const actual = stored === undefined ? '-1' : String(stored.version);
    if (expected !== undefined && expected !== actual) {
      return {
        status: 'REJECTED',
        code: 'precondition-failed',
        error: `Expected version ${expected}, actual version ${actual}`,
      };
    }
    try {
      if (proposal.changeType === 'DELETE') {
        if (proposal.aspect.isKey) this.aspects.delete(urn);
        else this.aspects.get(urn)?.delete(name);
        return { status: 'APPLIED' };
      }
      const value =
        proposal.patch === undefined
          ? proposal.value
          : proposal.aspect.validate(
              applyAspectPatch(proposal.aspect, stored?.value, proposal.patch, { now: NOW, urn }),
            );
      if (value === undefined) throw new Error('a write without a value');
      if (!this.exists(urn)) this.entity(urn);
      this.put(urn, name, value);
      return { status: 'APPLIED' };
    } catch (error) {
      if (!(error instanceof StrataError)) throw error;
      return { status: 'REJECTED', code: error.code, error: error.message };
    }
  }
}

const tagger: Policy = {
  urn: 'urn:li:dataHubPolicy:taggers',
  info: { type: 'METADATA', state: 'ACTIVE', privileges: ['EDIT_ENTITY_TAGS'], actors: { users: [TAGGER] } },
};

function authorizerFor(enabled = true): Authorizer {
  return new Authorizer({
    enabled,
    anonymousActor: UNKNOWN_ACTOR_URN,
    security: {
      snapshotFor: () =>
        Promise.resolve({
          principal: (actor: string) =>
            Promise.resolve({ actor, exists: true, removed: false, suspended: false, groups: [], roles: [] }),
          policies: () => Promise.resolve([...DEFAULT_POLICIES, tagger]),
        }),
    },
  });
}

function requestOf(actor: string): RequestContext {
  return {
    requestId: 'request-1',
    traceId: 'trace-1',
    actor,
    sourceIp: '10.0.0.1',
    userAgent: 'datahub-frontend',
    eventSource: 'RESTLI',
    url: '/api/graphql',
    header: () => undefined,
  };
}

async function run(
  catalog: Catalog,
  document: string,
  variables: Record<string, unknown> = {},
  actor = ROOT,
  authorizer: Authorizer | undefined = authorizerFor(),
): Promise<ExecutionResult> {
  const context: GraphqlContext = {
    request: requestOf(actor),
    call: catalog.call,
    system: catalog.system,
    entities: new DataLoader<string, LoadedEntity | null>(() => Promise.reject(new Error('mutations read no entity'))),
    registry,
    authorizer,
    submitter: catalog.submitter,
    now: () => NOW,
    deadline: Number.POSITIVE_INFINITY,
  };
  return execute({
    schema,
    document: parse(document),
    variableValues: variables,
    contextValue: context,
    fieldResolver: adaptingFieldResolver,
  });
}

/** The one error of a result, with the typed error it stands for (what the HTTP edge maps to `extensions.code`). */
function failure(result: ExecutionResult): { message: string; code: string | undefined } {
  const [error] = (result.errors ?? []) as GraphQLError[];
  if (error === undefined) throw new Error(`expected an error, got ${JSON.stringify(result.data)}`);
  const original = error.originalError;
  return { message: error.message, code: original instanceof StrataError ? original.code : undefined };
}

/** A dataset with a schema of two fields, a tag, a term, a domain and users. */
function catalogWithDataset(aspects: Readonly<Record<string, JsonObject>> = {}): Catalog {
  return new Catalog()
    .entity(DATASET, {
      schemaMetadata: {
        schemaName: 'orders',
        platform: 'urn:li:dataPlatform:hive',
        version: 0,
        hash: '',
        platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
        fields: [
          { fieldPath: 'id', nativeDataType: 'int', type: { type: { 'com.linkedin.schema.NumberType': {} } } },
          { fieldPath: 'email', nativeDataType: 'string', type: { type: { 'com.linkedin.schema.StringType': {} } } },
        ],
      },
      ...aspects,
    })
    .entity(OTHER)
    .entity(PII)
    .entity(GOLD)
    .entity(TERM)
    .entity(DOMAIN, { domainProperties: { name: 'Finance' } })
    .entity(ROOT)
    .entity(JDOE)
    .entity('urn:li:corpGroup:analysts');
}

const ADD_TAG = `mutation($input: TagAssociationInput!) { addTag(input: $input) }`;

describe('tags', () => {
  it('adds a tag to an entity as a PATCH of its globalTags, submitted as the caller, answering true', async () => {
    const catalog = catalogWithDataset({ globalTags: { tags: [{ tag: GOLD, context: 'curated' }] } });

    const result = await run(catalog, ADD_TAG, { input: { resourceUrn: DATASET, tagUrn: PII } });

    expect(result).toEqual({ data: { addTag: true } });
    expect(catalog.value(DATASET, 'globalTags')).toEqual({ tags: [{ tag: GOLD, context: 'curated' }, { tag: PII }] });
    const [{ proposals, submission }] = catalog.submissions as [(typeof catalog.submissions)[number]];
    expect(proposals.map((proposal) => [proposal.changeType, proposal.aspect.name])).toEqual([['PATCH', 'globalTags']]);
    expect(submission).toMatchObject({
      actor: ROOT,
      traceId: 'trace-1',
      sourceIp: '10.0.0.1',
      wait: true,
      authorization: { kind: 'guards' },
    });
    expect(proposals[0]?.systemMetadata).toEqual({ properties: { appSource: 'ui' } });
  });

  it('gives every submission of one request its own request id', async () => {
    const catalog = catalogWithDataset();

    await run(
      catalog,
      `mutation { a: addTag(input: {resourceUrn: "${DATASET}", tagUrn: "${PII}"})
                  b: addTag(input: {resourceUrn: "${DATASET}", tagUrn: "${GOLD}"}) }`,
    );

    expect(catalog.submissions.map(({ submission }) => submission.requestId)).toEqual(['request-1-1', 'request-1-2']);
    expect(catalog.value(DATASET, 'globalTags')).toEqual({ tags: [{ tag: PII }, { tag: GOLD }] });
  });

  it('leaves a tag already there as it is, writing nothing', async () => {
    const catalog = catalogWithDataset({ globalTags: { tags: [{ tag: PII, context: 'by hand' }] } });

    expect(await run(catalog, ADD_TAG, { input: { resourceUrn: DATASET, tagUrn: PII } })).toEqual({
      data: { addTag: true },
    });
    expect(catalog.submissions).toEqual([]);
  });

  it("adds a tag to a dataset's field in editableSchemaMetadata, making the field's entry", async () => {
    const catalog = catalogWithDataset();

    const input = { resourceUrn: DATASET, tagUrn: PII, subResource: 'email', subResourceType: 'DATASET_FIELD' };
    expect(await run(catalog, ADD_TAG, { input })).toEqual({ data: { addTag: true } });

    expect(catalog.value(DATASET, 'editableSchemaMetadata')).toMatchObject({
      editableSchemaFieldInfo: [{ fieldPath: 'email', globalTags: { tags: [{ tag: PII }] } }],
    });
  });

  it.each([
    [
      'a field the schema lacks',
      { resourceUrn: DATASET, tagUrn: PII, subResource: 'nope', subResourceType: 'DATASET_FIELD' },
      `Failed to update ${DATASET} & field nope. Field nope does not exist in the datasets schema.`,
    ],
    [
      'a field of a dataset without a schema',
      { resourceUrn: OTHER, tagUrn: PII, subResource: 'id', subResourceType: 'DATASET_FIELD' },
      `Failed to update ${OTHER} & field id. ${OTHER} has no schema.`,
    ],
    [
      'a sub-resource without its type',
      { resourceUrn: DATASET, tagUrn: PII, subResource: 'id' },
      `Failed to updates resource with urn ${DATASET}. SubResource (id) provided without a subResourceType.`,
    ],
    [
      'a resource that does not exist',
      { resourceUrn: MISSING, tagUrn: PII },
      `Failed to update resource with urn ${MISSING}. Entity does not exist.`,
    ],
    [
      'a tag that does not exist',
      { resourceUrn: DATASET, tagUrn: 'urn:li:tag:nope' },
      'Failed to validate label with urn urn:li:tag:nope. Urn does not exist.',
    ],
    [
      'a URN that is no tag',
      { resourceUrn: DATASET, tagUrn: TERM },
      `Failed to validate label with urn ${TERM}. Urn type does not match entity type tag..`,
    ],
    ['a resource that is no URN', { resourceUrn: 'orders', tagUrn: PII }, 'resourceUrn: Invalid URN'],
  ])('refuses %s with a 400 in DataHub’s words, writing nothing', async (_case, input, message) => {
    const catalog = catalogWithDataset();

    const result = await run(catalog, ADD_TAG, { input });

    expect(failure(result)).toEqual({ message: expect.stringContaining(message) as string, code: 'bad-request' });
    expect(result.data).toEqual({ addTag: null });
    expect(catalog.submissions).toEqual([]);
  });

  it('removes a tag; removing a URN that is no tag answers false and writes nothing', async () => {
    const catalog = catalogWithDataset({ globalTags: { tags: [{ tag: PII }, { tag: GOLD }] } });
    const remove = `mutation($input: TagAssociationInput!) { removeTag(input: $input) }`;

    expect(await run(catalog, remove, { input: { resourceUrn: DATASET, tagUrn: TERM } })).toEqual({
      data: { removeTag: false },
    });
    expect(catalog.submissions).toEqual([]);
    expect(await run(catalog, remove, { input: { resourceUrn: DATASET, tagUrn: PII } })).toEqual({
      data: { removeTag: true },
    });
    expect(catalog.value(DATASET, 'globalTags')).toEqual({ tags: [{ tag: GOLD }] });
  });

  it('a batch checks every resource before writing any: one missing resource writes nothing', async () => {
    const catalog = catalogWithDataset();
    const batch = `mutation($input: BatchAddTagsInput!) { batchAddTags(input: $input) }`;

    const refused = await run(catalog, batch, {
      input: { tagUrns: [PII], resources: [{ resourceUrn: DATASET }, { resourceUrn: MISSING }] },
    });
    expect(failure(refused).message).toBe(`Failed to update resource with urn ${MISSING}. Entity does not exist.`);
    expect(catalog.submissions).toEqual([]);

    const done = await run(catalog, batch, {
      input: {
        tagUrns: [PII, GOLD],
        resources: [{ resourceUrn: DATASET }, { resourceUrn: OTHER, subResource: '' }],
      },
    });
    expect(done).toEqual({ data: { batchAddTags: true } });
    expect(catalog.submissions).toHaveLength(1);
    expect(catalog.value(DATASET, 'globalTags')).toEqual({ tags: [{ tag: PII }, { tag: GOLD }] });
    expect(catalog.value(OTHER, 'globalTags')).toEqual({ tags: [{ tag: PII }, { tag: GOLD }] });

    await run(catalog, `mutation($input: BatchRemoveTagsInput!) { batchRemoveTags(input: $input) }`, {
      input: { tagUrns: [GOLD], resources: [{ resourceUrn: DATASET }, { resourceUrn: OTHER }] },
    });
    expect(catalog.value(OTHER, 'globalTags')).toEqual({ tags: [{ tag: PII }] });
  });
});

describe('who may edit', () => {
  it('refuses a user without the privilege with a 403 for the field, writing nothing', async () => {
    const catalog = catalogWithDataset();

    const result = await run(catalog, ADD_TAG, { input: { resourceUrn: DATASET, tagUrn: PII } }, JDOE);

    expect(failure(result)).toEqual({
      message: 'Unauthorized to perform this action. Please contact your DataHub administrator.',
      code: 'forbidden',
    });
    expect(catalog.submissions).toEqual([]);
  });

  it("allows the finer privilege for what it covers only: EDIT_ENTITY_TAGS tags the entity, not its fields' tags or owners", async () => {
    const catalog = catalogWithDataset();

    expect(await run(catalog, ADD_TAG, { input: { resourceUrn: DATASET, tagUrn: PII } }, TAGGER)).toEqual({
      data: { addTag: true },
    });
    const onField = { resourceUrn: DATASET, tagUrn: PII, subResource: 'id', subResourceType: 'DATASET_FIELD' };
    expect(failure(await run(catalog, ADD_TAG, { input: onField }, TAGGER)).code).toBe('forbidden');
    const owner = `mutation { addOwner(input: {resourceUrn: "${DATASET}", ownerUrn: "${JDOE}", ownerEntityType: CORP_USER, type: TECHNICAL_OWNER}) }`;
    expect(failure(await run(catalog, owner, {}, TAGGER))).toEqual({
      message: 'Unauthorized to update owners. Please contact your DataHub administrator.',
      code: 'forbidden',
    });
  });

  it('refuses an anonymous caller with a 401 where authentication is on; checks nothing where it is off', async () => {
    const catalog = catalogWithDataset();
    const input = { input: { resourceUrn: DATASET, tagUrn: PII } };

    expect(failure(await run(catalog, ADD_TAG, input, UNKNOWN_ACTOR_URN)).code).toBe('unauthorized');
    expect(await run(catalog, ADD_TAG, input, UNKNOWN_ACTOR_URN, authorizerFor(false))).toEqual({
      data: { addTag: true },
    });
  });
});

describe('glossary terms', () => {
  it('adds terms to an entity and to a field, stamping each list with the caller and the time', async () => {
    const catalog = catalogWithDataset();

    await run(catalog, `mutation($input: AddTermsInput!) { addTerms(input: $input) }`, {
      input: { resourceUrn: DATASET, termUrns: [TERM] },
    });
    await run(catalog, `mutation($input: TermAssociationInput!) { addTerm(input: $input) }`, {
      input: { resourceUrn: DATASET, termUrn: TERM, subResource: 'id', subResourceType: 'DATASET_FIELD' },
    });

    const stamp = { time: NOW, actor: ROOT };
    expect(catalog.value(DATASET, 'glossaryTerms')).toEqual({ terms: [{ urn: TERM }], auditStamp: stamp });
    expect(catalog.value(DATASET, 'editableSchemaMetadata')).toMatchObject({
      editableSchemaFieldInfo: [{ fieldPath: 'id', glossaryTerms: { terms: [{ urn: TERM }], auditStamp: stamp } }],
    });

    await run(catalog, `mutation($input: BatchRemoveTermsInput!) { batchRemoveTerms(input: $input) }`, {
      input: { termUrns: [TERM], resources: [{ resourceUrn: DATASET }] },
    });
    expect(catalog.value(DATASET, 'glossaryTerms')).toEqual({ terms: [], auditStamp: stamp });
  });

  it('refuses a tag where a term is expected', async () => {
    const result = await run(
      catalogWithDataset(),
      `mutation { addTerm(input: {resourceUrn: "${DATASET}", termUrn: "${PII}"}) }`,
    );
    expect(failure(result)).toEqual({
      message: `Failed to validate label with urn ${PII}. Urn type does not match entity type glossaryTerm..`,
      code: 'bad-request',
    });
  });
});

describe('owners', () => {
  const ADD_OWNER = `mutation($input: AddOwnerInput!) { addOwner(input: $input) }`;

  it('writes an owner with its ownership type URN, the legacy type and a MANUAL source, replacing it under the same type', async () => {
    const catalog = catalogWithDataset({
      ownership: {
        owners: [
          { owner: JDOE, type: 'TECHNICAL_OWNER' },
          { owner: JDOE, type: 'BUSINESS_OWNER', typeUrn: 'urn:li:ownershipType:__system__business_owner' },
        ],
      },
    });

    await run(catalog, ADD_OWNER, {
      input: { resourceUrn: DATASET, ownerUrn: JDOE, ownerEntityType: 'CORP_USER', type: 'TECHNICAL_OWNER' },
    });

    expect(catalog.value(DATASET, 'ownership')).toEqual({
      owners: [
        { owner: JDOE, type: 'BUSINESS_OWNER', typeUrn: 'urn:li:ownershipType:__system__business_owner' },
        {
          owner: JDOE,
          type: 'TECHNICAL_OWNER',
          typeUrn: 'urn:li:ownershipType:__system__technical_owner',
          source: { type: 'MANUAL' },
        },
      ],
      lastModified: { time: NOW, actor: ROOT },
    });
  });

  it('removes an owner under one ownership type, or under every type when none is given', async () => {
    const catalog = catalogWithDataset({
      ownership: {
        owners: [
          { owner: JDOE, type: 'TECHNICAL_OWNER' },
          { owner: JDOE, type: 'BUSINESS_OWNER' },
          { owner: ROOT, type: 'DATAOWNER' },
        ],
      },
    });
    const remove = `mutation($input: RemoveOwnerInput!) { removeOwner(input: $input) }`;

    await run(catalog, remove, {
      input: {
        resourceUrn: DATASET,
        ownerUrn: JDOE,
        ownershipTypeUrn: 'urn:li:ownershipType:__system__technical_owner',
      },
    });
    expect(catalog.value(DATASET, 'ownership')?.['owners']).toEqual([
      { owner: JDOE, type: 'BUSINESS_OWNER' },
      { owner: ROOT, type: 'DATAOWNER' },
    ]);
    await run(catalog, remove, { input: { resourceUrn: DATASET, ownerUrn: JDOE } });
    expect(catalog.value(DATASET, 'ownership')?.['owners']).toEqual([{ owner: ROOT, type: 'DATAOWNER' }]);
  });

  it('computes the owners again when another write changed them in between, losing neither', async () => {
    const catalog = catalogWithDataset({ ownership: { owners: [] } });
    catalog.interleave = () => {
      catalog.put(DATASET, 'ownership', { owners: [{ owner: ROOT, type: 'DATAOWNER' }] });
    };

    const result = await run(catalog, ADD_OWNER, {
      input: { resourceUrn: DATASET, ownerUrn: JDOE, ownerEntityType: 'CORP_USER', type: 'TECHNICAL_OWNER' },
    });

    expect(result).toEqual({ data: { addOwner: true } });
    expect(catalog.submissions).toHaveLength(2);
    expect(catalog.submissions[0]?.proposals[0]?.headers).toEqual({ 'If-Version-Match': '1' });
    expect(catalog.value(DATASET, 'ownership')?.['owners']).toEqual([
      { owner: ROOT, type: 'DATAOWNER' },
      expect.objectContaining({ owner: JDOE, type: 'TECHNICAL_OWNER' }),
    ]);
  });

  it('in a batch, writes again only the resources another write changed in between', async () => {
    const catalog = catalogWithDataset();
    catalog.interleave = () => {
      catalog.put(OTHER, 'ownership', { owners: [{ owner: ROOT, type: 'DATAOWNER' }] });
    };

    const result = await run(catalog, `mutation($input: BatchAddOwnersInput!) { batchAddOwners(input: $input) }`, {
      input: {
        owners: [{ ownerUrn: JDOE, ownerEntityType: 'CORP_USER', type: 'DEVELOPER' }],
        resources: [{ resourceUrn: DATASET }, { resourceUrn: OTHER }],
      },
    });

    expect(result).toEqual({ data: { batchAddOwners: true } });
    expect(catalog.submissions.map(({ proposals }) => proposals.map((proposal) => proposal.urn.toString()))).toEqual([
      [DATASET, OTHER],
      [OTHER],
    ]);
    expect(catalog.value(OTHER, 'ownership')?.['owners']).toEqual([
      { owner: ROOT, type: 'DATAOWNER' },
      expect.objectContaining({ owner: JDOE, type: 'DEVELOPER' }),
    ]);
    expect(catalog.value(DATASET, 'ownership')?.['owners']).toEqual([expect.objectContaining({ owner: JDOE })]);
  });

  it.each([
    [
      { ownerUrn: 'urn:li:corpGroup:analysts', ownerEntityType: 'CORP_USER', type: 'NONE' },
      'Failed to change ownership for resource(s). Expected a corp user urn, found urn:li:corpGroup:analysts.',
    ],
    [
      { ownerUrn: 'urn:li:corpuser:ghost', ownerEntityType: 'CORP_USER', type: 'NONE' },
      'Failed to change ownership for resource(s). Owner with urn urn:li:corpuser:ghost does not exist.',
    ],
    [
      { ownerUrn: JDOE, ownerEntityType: 'CORP_USER', ownershipTypeUrn: 'urn:li:ownershipType:steward' },
      'Failed to change ownership for resource(s). Custom Ownership type with urn urn:li:ownershipType:steward does not exist.',
    ],
    [
      { ownerUrn: JDOE, ownerEntityType: 'CORP_USER' },
      'Failed to change ownership for resource(s). Expected either type or ownershipTypeUrn to be specified.',
    ],
  ])('refuses an owner that does not do: %j', async (owner, message) => {
    const catalog = catalogWithDataset();
    const result = await run(catalog, ADD_OWNER, { input: { resourceUrn: DATASET, ...owner } });
    expect(failure(result)).toEqual({ message, code: 'bad-request' });
    expect(catalog.submissions).toEqual([]);
  });

  it('a batch: a group owner under a custom ownership type on every resource; no owners on fields', async () => {
    const custom = 'urn:li:ownershipType:steward';
    const catalog = catalogWithDataset().entity(custom, {
      ownershipTypeInfo: { name: 'Steward', created: { time: 0, actor: ROOT }, lastModified: { time: 0, actor: ROOT } },
    });
    const batch = `mutation($input: BatchAddOwnersInput!) { batchAddOwners(input: $input) }`;
    const owners = [{ ownerUrn: 'urn:li:corpGroup:analysts', ownerEntityType: 'CORP_GROUP' }];

    const onField = await run(catalog, batch, {
      input: { owners, ownershipTypeUrn: custom, resources: [{ resourceUrn: DATASET, subResource: 'id' }] },
    });
    expect(failure(onField).message).toBe('Malformed input provided: owners cannot be applied to subresources.');

    await run(catalog, batch, {
      input: { owners, ownershipTypeUrn: custom, resources: [{ resourceUrn: DATASET }, { resourceUrn: OTHER }] },
    });
    for (const urn of [DATASET, OTHER]) {
      expect(catalog.value(urn, 'ownership')?.['owners']).toEqual([
        { owner: 'urn:li:corpGroup:analysts', type: 'NONE', typeUrn: custom, source: { type: 'MANUAL' } },
      ]);
    }
    await run(catalog, `mutation($input: BatchRemoveOwnersInput!) { batchRemoveOwners(input: $input) }`, {
      input: { ownerUrns: ['urn:li:corpGroup:analysts'], resources: [{ resourceUrn: OTHER }] },
    });
    expect(catalog.value(OTHER, 'ownership')?.['owners']).toEqual([]);
  });
});

describe('descriptions', () => {
  const UPDATE = `mutation($input: DescriptionUpdateInput!) { updateDescription(input: $input) }`;

  it("edits a dataset's description in editableDatasetProperties, keeping what else it holds", async () => {
    const catalog = catalogWithDataset({ editableDatasetProperties: { name: 'Orders', description: 'old' } });

    expect(await run(catalog, UPDATE, { input: { resourceUrn: DATASET, description: 'All orders' } })).toEqual({
      data: { updateDescription: true },
    });
    expect(catalog.value(DATASET, 'editableDatasetProperties')).toEqual({ name: 'Orders', description: 'All orders' });
    expect(catalog.writes()[0]?.changeType).toBe('PATCH');
  });

  it("edits a field's description in its entry of editableSchemaMetadata", async () => {
    const catalog = catalogWithDataset();
    const input = {
      resourceUrn: DATASET,
      description: 'Where to write',
      subResource: 'email',
      subResourceType: 'DATASET_FIELD',
    };

    await run(catalog, UPDATE, { input });

    expect(catalog.value(DATASET, 'editableSchemaMetadata')).toMatchObject({
      editableSchemaFieldInfo: [{ fieldPath: 'email', description: 'Where to write' }],
    });
  });

  it("makes a tag's properties from its name when it has none; edits a term's definition", async () => {
    const catalog = catalogWithDataset().entity('urn:li:glossaryTerm:margin', {
      glossaryTermInfo: { name: 'Margin', definition: 'old', termSource: 'INTERNAL' },
    });

    await run(catalog, UPDATE, { input: { resourceUrn: PII, description: 'Personal data' } });
    await run(catalog, UPDATE, {
      input: { resourceUrn: 'urn:li:glossaryTerm:margin', description: 'Revenue less cost' },
    });

    expect(catalog.value(PII, 'tagProperties')).toEqual({ name: 'pii', description: 'Personal data' });
    expect(catalog.value('urn:li:glossaryTerm:margin', 'glossaryTermInfo')).toMatchObject({
      name: 'Margin',
      definition: 'Revenue less cost',
    });
  });

  it.each([
    [TERM, 'Properties for this Glossary Term do not yet exist!'],
    [
      'urn:li:dataPlatform:hive',
      'Failed to update description. Unsupported resource type urn:li:dataPlatform:hive provided.',
    ],
    [MISSING, `Failed to update ${MISSING}. ${MISSING} does not exist.`],
  ])('refuses %s: %s', async (urn, message) => {
    const catalog = catalogWithDataset();
    expect(failure(await run(catalog, UPDATE, { input: { resourceUrn: urn, description: 'x' } }))).toEqual({
      message,
      code: 'bad-request',
    });
    expect(catalog.submissions).toEqual([]);
  });
});

describe('links', () => {
  it('adds a link once; removes it by URL and label, or every link with the URL', async () => {
    const catalog = catalogWithDataset();
    const add = (label: string) =>
      run(catalog, `mutation($input: AddLinkInput!) { addLink(input: $input) }`, {
        input: { resourceUrn: DATASET, linkUrl: 'https://wiki/orders', label, settings: { showInAssetPreview: true } },
      });

    await add('Wiki');
    await add('Wiki');
    await add('Runbook');
    const link = (label: string) => ({
      url: 'https://wiki/orders',
      description: label,
      createStamp: { time: NOW, actor: ROOT },
      settings: { showInAssetPreview: true },
    });
    expect(catalog.submissions).toHaveLength(2);
    expect(catalog.value(DATASET, 'institutionalMemory')).toEqual({ elements: [link('Wiki'), link('Runbook')] });

    const remove = `mutation($input: RemoveLinkInput!) { removeLink(input: $input) }`;
    await run(catalog, remove, { input: { resourceUrn: DATASET, linkUrl: 'https://wiki/orders', label: 'Wiki' } });
    expect(catalog.value(DATASET, 'institutionalMemory')).toEqual({ elements: [link('Runbook')] });
    await run(catalog, remove, { input: { resourceUrn: DATASET, linkUrl: 'https://wiki/orders' } });
    expect(catalog.value(DATASET, 'institutionalMemory')).toEqual({ elements: [] });
  });

  it('refuses a URL that is none', async () => {
    const catalog = catalogWithDataset();
    const result = await run(
      catalog,
      `mutation { addLink(input: {resourceUrn: "${DATASET}", linkUrl: "not a url", label: "x"}) }`,
    );
    expect(failure(result)).toEqual({
      message: `Failed to change institutional memory for resource ${DATASET}. Expected an url.`,
      code: 'bad-request',
    });
  });
});

describe('domains, deprecation and soft deletion', () => {
  it('sets, replaces and unsets the domain; a domain that does not exist is a 400', async () => {
    const catalog = catalogWithDataset();

    expect(await run(catalog, `mutation { setDomain(entityUrn: "${DATASET}", domainUrn: "${DOMAIN}") }`)).toEqual({
      data: { setDomain: true },
    });
    expect(catalog.value(DATASET, 'domains')).toEqual({ domains: [DOMAIN] });
    const missing = await run(
      catalog,
      `mutation { setDomain(entityUrn: "${DATASET}", domainUrn: "urn:li:domain:nope") }`,
    );
    expect(failure(missing).message).toBe(
      `Failed to add Entity ${DATASET} to Domain urn:li:domain:nope. Domain does not exist.`,
    );
    await run(catalog, `mutation { unsetDomain(entityUrn: "${DATASET}") }`);
    expect(catalog.value(DATASET, 'domains')).toEqual({ domains: [] });
    await run(catalog, `mutation($input: BatchSetDomainInput!) { batchSetDomain(input: $input) }`, {
      input: { domainUrn: DOMAIN, resources: [{ resourceUrn: DATASET }, { resourceUrn: OTHER }] },
    });
    expect(catalog.value(OTHER, 'domains')).toEqual({ domains: [DOMAIN] });
  });

  it("deprecates an entity, and a dataset's field through its schema field entity", async () => {
    const catalog = catalogWithDataset();

    await run(catalog, `mutation($input: UpdateDeprecationInput!) { updateDeprecation(input: $input) }`, {
      input: { urn: DATASET, deprecated: true, note: 'Use customers', decommissionTime: NOW + 1, replacement: OTHER },
    });
    await run(catalog, `mutation($input: BatchUpdateDeprecationInput!) { batchUpdateDeprecation(input: $input) }`, {
      input: {
        deprecated: true,
        resources: [{ resourceUrn: DATASET, subResource: 'email', subResourceType: 'DATASET_FIELD' }],
      },
    });

    expect(catalog.value(DATASET, 'deprecation')).toEqual({
      deprecated: true,
      note: 'Use customers',
      actor: ROOT,
      decommissionTime: NOW + 1,
      replacement: OTHER,
    });
    expect(catalog.value(`urn:li:schemaField:(${DATASET},email)`, 'deprecation')).toEqual({
      deprecated: true,
      note: '',
      actor: ROOT,
    });
  });

  it('soft-deletes and restores entities, keeping the rest of their status; all must exist', async () => {
    const lifecycle = { removed: false, lifecycleStage: 'urn:li:lifecycleStageType:draft' };
    const catalog = catalogWithDataset({ status: lifecycle });
    const softDelete = `mutation($input: BatchUpdateSoftDeletedInput!) { batchUpdateSoftDeleted(input: $input) }`;

    const refused = await run(catalog, softDelete, { input: { urns: [DATASET, MISSING], deleted: true } });
    expect(failure(refused).message).toBe(`Failed to soft delete entity with urn ${MISSING}. Entity does not exist.`);
    await run(catalog, softDelete, { input: { urns: [DATASET, OTHER], deleted: true } });

    expect(catalog.value(DATASET, 'status')).toEqual({ ...lifecycle, removed: true });
    expect(catalog.value(OTHER, 'status')).toEqual({ removed: true });
    expect(failure(await run(catalog, softDelete, { input: { urns: [OTHER], deleted: false } }, JDOE)).code).toBe(
      'forbidden',
    );
  });
});

describe('access tokens', () => {
  const CREATE = `mutation($input: CreateAccessTokenInput!) {
    createAccessToken(input: $input) { accessToken metadata { urn type id name actorUrn ownerUrn createdAt expiresAt } } }`;
  const metadata = {
    id: 'token-1',
    name: 'cli',
    actorUrn: ROOT,
    ownerUrn: ROOT,
    createdAt: NOW,
    expiresAt: NOW + 3_600_000,
  };

  it("makes a token through the token route, as the caller, answered in DataHub's shape", async () => {
    const catalog = new Catalog();
    catalog.answerCall = () => ({ accessToken: 'eyJ.token', metadata });

    const result = await run(catalog, CREATE, {
      input: { type: 'PERSONAL', actorUrn: ROOT, duration: 'ONE_HOUR', name: 'cli' },
    });

    expect(catalog.calls).toEqual([
      {
        method: 'POST',
        resource: '/openapi/v1/tokens',
        body: { name: 'cli', actorUrn: ROOT, duration: 'ONE_HOUR' },
      },
    ]);
    expect(result).toEqual({
      data: {
        createAccessToken: {
          accessToken: 'eyJ.token',
          metadata: { urn: 'urn:li:dataHubAccessToken:token-1', type: 'ACCESS_TOKEN', ...metadata },
        },
      },
    });
  });

  it("answers the route's refusal, and refuses service account tokens", async () => {
    const catalog = new Catalog();
    catalog.answerCall = () => {
      throw new ForbiddenError('Unauthorized to perform this action. Please contact your DataHub administrator.');
    };
    const input = { type: 'PERSONAL', actorUrn: ROOT, duration: 'ONE_DAY', name: 'x' };

    expect(failure(await run(catalog, CREATE, { input }, JDOE)).code).toBe('forbidden');
    expect(failure(await run(catalog, CREATE, { input: { ...input, type: 'SERVICE_ACCOUNT' } }))).toEqual({
      message: 'Unsupported AccessTokenType SERVICE_ACCOUNT provided',
      code: 'bad-request',
    });
  });

  it("revokes a token through the token route, as the caller, and answers the route's refusal", async () => {
    const catalog = new Catalog();
    catalog.answerCall = (call) => {
      if (call.params?.['id'] === 'token-9') throw new NotFoundError('No access token token-9');
      return undefined;
    };
    const revoke = (id: string, actor: string) =>
      run(catalog, `mutation { revokeAccessToken(tokenId: "${id}") }`, {}, actor);

    expect(await revoke('token-1', JDOE)).toEqual({ data: { revokeAccessToken: true } });
    expect(catalog.calls).toEqual([
      { method: 'DELETE', resource: '/openapi/v1/tokens/:id', params: { id: 'token-1' } },
    ]);
    expect(failure(await revoke('token-9', JDOE))).toEqual({ message: 'No access token token-9', code: 'not-found' });
    expect(catalog.submissions).toEqual([]);
  });
});
