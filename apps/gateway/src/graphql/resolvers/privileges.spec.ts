/**
 * `privileges` of entities and `appConfig.authConfig`, on the real schema with the real authorizer on DataHub's default
 * policies, over a catalog held in memory. The main property: each answer is what the server does — for every caller
 * and every edit, the edit's mutation succeeds exactly when `privileges` says it may (its writes authorized as the
 * gateway's submitter authorizes them, guards of the security inputs included).
 */
import DataLoader from 'dataloader';
import { execute, parse, type ExecutionResult } from 'graphql';
import { DEFAULT_POLICIES, type Policy, type ResourceFacts } from '@strata/auth';
import type { RequestContext, RouteCall } from '@strata/http';
import { applyAspectPatch, parseUrn, UNKNOWN_ACTOR_URN, type JsonObject, type ValidatedProposal } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import { readGraphqlSchema } from '@strata/schemas';
import { Authorizer } from '../../auth/authorizer';
import type { ProposalSubmitter, Submission } from '../../ingest/proposal-submitter';
import type { GraphqlContext, LoadedEntity } from '../context';
import { adaptingFieldResolver, executableSchema } from '../schema';
import { entitiesResolvers } from './entities';
import { miscResolvers } from './misc';
import { mutationsResolvers } from './mutations';
import { authConfigResolvers, PRIVILEGE_FIELDS } from './privileges';

const registry = testEntityRegistry();
const schema = executableSchema(
  readGraphqlSchema().map((file) => file.text),
  [entitiesResolvers, mutationsResolvers, miscResolvers, authConfigResolvers],
);

const ROOT = 'urn:li:corpuser:datahub';
const JDOE = 'urn:li:corpuser:jdoe';
const TAGGER = 'urn:li:corpuser:tagger';
const OWNER = 'urn:li:corpuser:owner';
const EDITOR = 'urn:li:corpuser:editor';
const USERS = [ROOT, JDOE, TAGGER, OWNER, EDITOR];

const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:hive,orders,PROD)';
const OTHER = 'urn:li:dataset:(urn:li:dataPlatform:hive,customers,PROD)';
const MISSING = 'urn:li:dataset:(urn:li:dataPlatform:hive,missing,PROD)';
const CHART = 'urn:li:chart:(looker,revenue)';
const PII = 'urn:li:tag:pii';
const TERM = 'urn:li:glossaryTerm:revenue';
const DOMAIN = 'urn:li:domain:finance';

const tagger: Policy = {
  urn: 'urn:li:dataHubPolicy:taggers',
  info: { type: 'METADATA', state: 'ACTIVE', privileges: ['EDIT_ENTITY_TAGS'], actors: { users: [TAGGER] } },
};

/** Aspects held in memory; writes applied as the writer applies them (PATCH and values). */
class Catalog {
  readonly aspects = new Map<string, Map<string, JsonObject>>();
  factReads = 0;
  snapshots = 0;

  entity(urn: string, aspects: Readonly<Record<string, JsonObject>> = {}): this {
    const parsed = parseUrn(urn);
    const spec = registry.entity(parsed.entityType);
    if (spec === undefined) throw new Error(`no entity type ${parsed.entityType}`);
    const stored = this.aspects.get(urn) ?? new Map<string, JsonObject>();
    stored.set(spec.keyAspect.name, spec.keyFromUrn(parsed));
    for (const [name, value] of Object.entries(aspects)) stored.set(name, value);
    this.aspects.set(urn, stored);
    return this;
  }

  private exists(urn: string): boolean {
    const spec = registry.entity(parseUrn(urn).entityType);
    return spec !== undefined && this.aspects.get(urn)?.has(spec.keyAspect.name) === true;
  }

  private loaded(urn: string, wanted?: readonly string[]): LoadedEntity {
    const aspects: Record<string, LoadedEntity['aspects'][string]> = {};
    for (const [name, value] of this.aspects.get(urn) ?? []) {
      if (wanted === undefined || wanted.includes(name)) {
        aspects[name] = { value, version: 0, systemMetadata: { version: '1' } };
      }
    }
    return { urn, entityName: parseUrn(urn).entityType, aspects };
  }

  readonly system = (call: RouteCall): Promise<unknown> => {
    if (call.method === 'POST' && call.resource === '/entities' && call.action === 'exists') {
      return Promise.resolve({ value: this.exists((call.body as { urn: string }).urn) });
    }
    if (call.method === 'GET' && call.resource === '/entitiesV2') {
      const ids = call.query?.['ids'] as string[];
      const wanted = call.query?.['aspects'] as string[] | undefined;
      return Promise.resolve({ results: Object.fromEntries(ids.map((urn) => [urn, this.loaded(urn, wanted)])) });
    }
    return Promise.reject(new Error(`unexpected call ${call.method} ${call.resource}`));
  };

  /** What the gateway's facts reader answers: the owners of each entity. */
  readonly facts = (urns: readonly string[]): Promise<ReadonlyMap<string, ResourceFacts>> => {
    this.factReads++;
    return Promise.resolve(
      new Map(
        urns.map((urn) => {
          const owners = (this.aspects.get(urn)?.get('ownership')?.['owners'] ?? []) as { owner: string }[];
          const facts: ResourceFacts = {
            type: parseUrn(urn).entityType,
            urn,
            owners: owners.map((owner) => ({ owner: owner.owner })),
          };
          return [urn, facts];
        }),
      ),
    );
  };

  authorizer(enabled = true): Authorizer {
    return new Authorizer({
      enabled,
      anonymousActor: UNKNOWN_ACTOR_URN,
      facts: this.facts,
      security: {
        snapshotFor: () => {
          this.snapshots++;
          return Promise.resolve({
            principal: (actor: string) =>
              Promise.resolve({
                actor,
                exists: true,
                removed: false,
                suspended: false,
                groups: [],
                roles: actor === EDITOR ? ['urn:li:dataHubRole:Editor'] : [],
              }),
            policies: () => Promise.resolve([...DEFAULT_POLICIES, tagger]),
          });
        },
      },
    });
  }

  /** The gateway's submitter as far as authorization goes: the writes authorized, then applied. */
  submitter(authorizer: Authorizer): ProposalSubmitter {
    return {
      submit: async (proposals: readonly ValidatedProposal[], submission: Submission) => {
        const allowed = await authorizer.authorizeWrites(submission.authorization, proposals);
        for (const proposal of allowed) {
          const urn = proposal.urn.toString();
          const current = this.aspects.get(urn)?.get(proposal.aspect.name);
          const value =
            proposal.patch === undefined
              ? proposal.value
              : proposal.aspect.validate(applyAspectPatch(proposal.aspect, current, proposal.patch, { now: 1, urn }));
          if (value === undefined) throw new Error('a write without a value');
          this.aspects.get(urn)?.set(proposal.aspect.name, value);
        }
        return { outcomes: [], proposalIds: [], skippedIndexing: [] };
      },
    } as unknown as ProposalSubmitter;
  }
}

function catalog(): Catalog {
  const schemaMetadata = {
    schemaName: 'orders',
    platform: 'urn:li:dataPlatform:hive',
    version: 0,
    hash: '',
    platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
    fields: [{ fieldPath: 'id', nativeDataType: 'int', type: { type: { 'com.linkedin.schema.NumberType': {} } } }],
  };
  return new Catalog()
    .entity(DATASET, { schemaMetadata, ownership: { owners: [{ owner: OWNER, type: 'TECHNICAL_OWNER' }] } })
    .entity(OTHER, { ownership: { owners: [{ owner: OWNER, type: 'TECHNICAL_OWNER' }] } })
    .entity(CHART)
    .entity(PII)
    .entity(TERM)
    .entity(DOMAIN, { domainProperties: { name: 'Finance' } })
    .entity(ROOT)
    .entity(JDOE);
}

function request(actor: string): RequestContext {
  return {
    requestId: 'request-1',
    traceId: 'trace-1',
    actor,
    sourceIp: '127.0.0.1',
    userAgent: 'test',
    eventSource: 'RESTLI',
    url: '/api/graphql',
    header: () => undefined,
  };
}

async function run(
  store: Catalog,
  document: string,
  actor: string,
  authorizer: Authorizer = store.authorizer(),
): Promise<ExecutionResult> {
  const context: GraphqlContext = {
    request: request(actor),
    call: () => Promise.resolve({ versions: {} }),
    system: store.system,
    entities: new DataLoader<string, LoadedEntity | null>(async (urns) => {
      const body = (await store.system({ method: 'GET', resource: '/entitiesV2', query: { ids: [...urns] } })) as {
        results: Record<string, LoadedEntity>;
      };
      return urns.map((urn) => body.results[urn] ?? null);
    }),
    registry,
    authorizer,
    submitter: store.submitter(authorizer),
    now: () => 1,
    deadline: Number.POSITIVE_INFINITY,
  };
  return execute({ schema, document: parse(document), contextValue: context, fieldResolver: adaptingFieldResolver });
}

const FIELDS = PRIVILEGE_FIELDS.join(' ');

async function privilegesOf(
  store: Catalog,
  urn: string,
  actor: string,
  authorizer?: Authorizer,
): Promise<Record<string, boolean>> {
  const result = await run(
    store,
    `{ entity(urn: "${urn}") { ... on Dataset { privileges { ${FIELDS} } } ... on Chart { privileges { ${FIELDS} } } ... on CorpUser { privileges { ${FIELDS} } } } }`,
    actor,
    authorizer,
  );
  expect(result.errors).toBeUndefined();
  return (result.data as { entity: { privileges: Record<string, boolean> } }).entity.privileges;
}

/** Each edit of the dataset, by the field that says whether it is allowed. */
const EDITS: Readonly<Record<string, string>> = {
  canEditDescription: `updateDescription(input: {resourceUrn: "${DATASET}", description: "Orders"})`,
  canEditTags: `addTag(input: {resourceUrn: "${DATASET}", tagUrn: "${PII}"})`,
  canEditGlossaryTerms: `addTerm(input: {resourceUrn: "${DATASET}", termUrn: "${TERM}"})`,
  canEditOwners: `addOwner(input: {resourceUrn: "${DATASET}", ownerUrn: "${JDOE}", ownerEntityType: CORP_USER, type: TECHNICAL_OWNER})`,
  canEditLinks: `addLink(input: {resourceUrn: "${DATASET}", linkUrl: "https://wiki.example.com/orders", label: "Wiki"})`,
  canEditDomains: `setDomain(entityUrn: "${DATASET}", domainUrn: "${DOMAIN}")`,
  canEditDeprecation: `updateDeprecation(input: {urn: "${DATASET}", deprecated: true, note: "old"})`,
  canManageEntity: `batchUpdateSoftDeleted(input: {urns: ["${DATASET}"], deleted: true})`,
  canEditSchemaFieldDescription: `updateDescription(input: {resourceUrn: "${DATASET}", description: "Id", subResource: "id", subResourceType: DATASET_FIELD})`,
  canEditSchemaFieldTags: `addTag(input: {resourceUrn: "${DATASET}", tagUrn: "${PII}", subResource: "id", subResourceType: DATASET_FIELD})`,
  canEditSchemaFieldGlossaryTerms: `addTerm(input: {resourceUrn: "${DATASET}", termUrn: "${TERM}", subResource: "id", subResourceType: DATASET_FIELD})`,
};

describe('privileges: what the mutations do', () => {
  it.each(USERS.flatMap((actor) => Object.keys(EDITS).map((field) => [actor, field] as const)))(
    '%s: %s is whether the mutation succeeds',
    async (actor, field) => {
      const said = (await privilegesOf(catalog(), DATASET, actor))[field];
      const result = await run(catalog(), `mutation { ${EDITS[field] ?? ''} }`, actor);
      expect({ field, succeeded: result.errors === undefined }).toEqual({ field, succeeded: said });
    },
  );

  it('answers each caller what DataHub default policies give it', async () => {
    const store = catalog();
    const allowed = async (actor: string) =>
      Object.entries(await privilegesOf(store, DATASET, actor))
        .filter(([, value]) => value)
        .map(([field]) => field);
    const views = ['canViewDatasetProfile', 'canViewDatasetUsage', 'canViewDatasetOperations'];
    expect(await allowed(ROOT)).toEqual([...PRIVILEGE_FIELDS]);
    expect(await allowed(JDOE)).toEqual(views);
    expect(await allowed(TAGGER)).toEqual(['canEditTags', ...views]);
    // Owners hold EDIT_ENTITY, which soft deletion also accepts; editors lack it (and the owners' privilege).
    expect(await allowed(OWNER)).toEqual([...PRIVILEGE_FIELDS]);
    expect((await allowed(EDITOR)).sort()).toEqual(
      PRIVILEGE_FIELDS.filter(
        (field) => !['canEditOwners', 'canManageEntity', 'canEditLineage', 'canEditProperties'].includes(field),
      ).sort(),
    );
  });

  it('answers no edit of what an entity type does not have: a chart has no schema fields, no profile', async () => {
    const chart = await privilegesOf(catalog(), CHART, ROOT);
    expect(chart).toMatchObject({
      canEditDescription: true,
      canEditTags: true,
      canManageEntity: true,
      canEditSchemaFieldDescription: false,
      canEditSchemaFieldTags: false,
      canViewDatasetProfile: false,
    });
  });

  it('answers nothing allowed on an entity that does not exist', async () => {
    const answer = await privilegesOf(catalog(), MISSING, ROOT);
    expect(Object.values(answer).some(Boolean)).toBe(false);
  });

  it('decides a page of entities at once: one snapshot, one read of their facts', async () => {
    const store = catalog();
    store.snapshots = 0;
    store.factReads = 0;
    const page = [DATASET, OTHER, CHART].map(
      (urn, index) =>
        `e${index}: entity(urn: "${urn}") { ... on Dataset { privileges { canEditTags } } ... on Chart { privileges { canEditTags } } }`,
    );
    const result = await run(store, `{ ${page.join(' ')} }`, OWNER);
    expect(result).toEqual({
      data: {
        e0: { privileges: { canEditTags: true } },
        e1: { privileges: { canEditTags: true } },
        e2: { privileges: { canEditTags: false } },
      },
    });
    expect({ snapshots: store.snapshots, factReads: store.factReads }).toEqual({ snapshots: 1, factReads: 1 });
  });

  it('with authentication off: every edit, but never a guarded write for anonymous (a user soft-deleted)', async () => {
    const store = catalog();
    const off = store.authorizer(false);
    const anonymousOnDataset = await privilegesOf(store, DATASET, UNKNOWN_ACTOR_URN, off);
    expect(Object.values(anonymousOnDataset).every((value) => value)).toBe(true);
    const anonymousOnUser = await privilegesOf(store, JDOE, UNKNOWN_ACTOR_URN, off);
    expect(anonymousOnUser).toMatchObject({ canEditTags: true, canManageEntity: false });
    expect(
      (
        await run(
          store,
          `mutation { batchUpdateSoftDeleted(input: {urns: ["${JDOE}"], deleted: true}) }`,
          UNKNOWN_ACTOR_URN,
          off,
        )
      ).errors,
    ).toBeDefined();
    expect((await privilegesOf(store, JDOE, ROOT, off)).canManageEntity).toBe(true);
  });

  it('with authentication on: nothing for anonymous', async () => {
    const answer = await privilegesOf(catalog(), DATASET, UNKNOWN_ACTOR_URN);
    expect(
      Object.entries(answer)
        .filter(([field, value]) => value && !field.startsWith('canView'))
        .map(([field]) => field),
    ).toEqual([]);
  });
});

describe('appConfig.authConfig', () => {
  it('says whether authentication is on', async () => {
    const store = catalog();
    const ask = (authorizer: Authorizer) =>
      run(store, '{ appConfig { authConfig { tokenAuthEnabled } } }', ROOT, authorizer);
    expect(await ask(store.authorizer(true))).toEqual({
      data: { appConfig: { authConfig: { tokenAuthEnabled: true } } },
    });
    expect(await ask(store.authorizer(false))).toEqual({
      data: { appConfig: { authConfig: { tokenAuthEnabled: false } } },
    });
  });
});
