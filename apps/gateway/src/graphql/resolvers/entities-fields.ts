/**
 * The fields of every entity type the API serves, as one table: for each GraphQL type, each field's source — an
 * aspect (mapped as DataHub's mappers map it, or as is where the GraphQL type mirrors the record), a part of the key,
 * or one of the reads every entity type shares. `urn` and `type` come with the entity itself. Each field reads its
 * entity through the request's entity loader, so a page of entities is one batched read whatever fields it asks.
 */
import { adapt, adaptingFieldResolver, type FieldResolver, type ResolverMap } from '../schema';
import {
  auditStampOf,
  browsePathV2Of,
  chartLikeInfoOf,
  DATAHUB_PLATFORM_URN,
  deprecationOf,
  editableSchemaMetadataOf,
  firstDomainOf,
  globalTagsOf,
  glossaryTermNameOf,
  glossaryTermsOf,
  institutionalMemoryOf,
  lastIngestedOf,
  listOf,
  mirrored,
  numberOf,
  ownershipOf,
  platformUrnOf,
  recordOf,
  textOf,
  timeStampAsAuditStamp,
  UNKNOWN_PLATFORM_URN,
  type Value,
} from './entities-values';
import {
  datasetProfilesOf,
  lineageOf,
  parentContainersOf,
  parentNodesOf,
  rawAspectsOf,
  relationshipsOf,
  schemaMetadataAt,
  usageStatsOf,
} from './entities-reads';
import { presenceOf, viewOf, type EntityView } from './entities-view';

/** How one field of an entity is answered from the entity read. */
type Spec = (view: EntityView, args: Readonly<Record<string, unknown>>) => unknown;
type Fields = Readonly<Record<string, Spec>>;

/** The value of an aspect, mapped; null when the entity does not hold it. */
function fromAspect(name: string, map: (value: Value, view: EntityView) => unknown): Spec {
  return (view) => {
    const value = view.aspect(name);
    return value === undefined ? null : map(value, view);
  };
}

/** An aspect whose GraphQL type mirrors its record. */
function mirrorOf(name: string): Spec {
  return fromAspect(name, (value, view) => mirrored(value, view.urn));
}

/** A field of the entity's key. */
function keyPart(field: string): Spec {
  return (view) => view.key()[field] ?? null;
}

/** A text field of the entity's key ('' when the key has none). */
function keyText(view: EntityView, field: string): string {
  return textOf(view.key()[field]) ?? '';
}

/** A text field of an aspect. */
function textIn(aspect: string, field: string): Spec {
  return fromAspect(aspect, (value) => textOf(value[field]) ?? null);
}

/** The fields many entity types share, each the same way for every type. */
const SHARED = {
  aspects: (view, args) => rawAspectsOf(view, args['input'] as Parameters<typeof rawAspectsOf>[1]),
  browsePathV2: fromAspect('browsePathsV2', browsePathV2Of),
  container: textIn('container', 'container'),
  // The instance, or — as DataHub maps the aspect — an instance without a URN of its own that still names its
  // platform (what `datahub lineage` prints of a job): its other fields are null.
  dataPlatformInstance: fromAspect('dataPlatformInstance', (value) => {
    const instance = textOf(value['instance']);
    if (instance !== undefined) return instance;
    const platform = textOf(value['platform']);
    return platform === undefined ? null : { type: 'DATA_PLATFORM_INSTANCE', platform };
  }),
  deprecation: fromAspect('deprecation', deprecationOf),
  domain: async (view) => {
    const domains = view.aspect('domains');
    const domain = domains === undefined ? undefined : firstDomainOf(domains);
    // As DataHub, a domain that is gone is no association.
    if (domain === undefined || !(await presenceOf(view.context, domain)).exists) return null;
    return { associatedUrn: view.urn, domain };
  },
  exists: (view) => view.exists(),
  globalTags: fromAspect('globalTags', (value, view) => globalTagsOf(value, view.urn)),
  glossaryTerms: fromAspect('glossaryTerms', (value, view) => glossaryTermsOf(value, view.urn)),
  institutionalMemory: fromAspect('institutionalMemory', (value, view) => institutionalMemoryOf(value, view.urn)),
  lastIngested: (view) => lastIngestedOf(view.loaded),
  lineage: (view, args) => lineageOf(view, args['input'] as Parameters<typeof lineageOf>[1]),
  ownership: fromAspect('ownership', (value, view) => ownershipOf(value, view.urn)),
  parentContainers: (view) => parentContainersOf(view),
  relationships: (view, args) => relationshipsOf(view, args['input'] as Parameters<typeof relationshipsOf>[1], false),
  status: fromAspect('status', (value) => ({ removed: value['removed'] === true })),
  subTypes: mirrorOf('subTypes'),
  tags: fromAspect('globalTags', (value, view) => globalTagsOf(value, view.urn)),
} satisfies Fields;

type SharedField = keyof typeof SHARED;

/** The shared fields a type has. */
function shared(...names: SharedField[]): Fields {
  return Object.fromEntries(names.map((name) => [name, SHARED[name]]));
}

/** What every data asset with a page of its own shares. */
const ASSET: readonly SharedField[] = [
  'aspects',
  'browsePathV2',
  'container',
  'dataPlatformInstance',
  'deprecation',
  'domain',
  'exists',
  'glossaryTerms',
  'institutionalMemory',
  'lastIngested',
  'ownership',
  'parentContainers',
  'relationships',
  'status',
  'subTypes',
  'tags',
];

/** What the ML types share. */
const ML: readonly SharedField[] = [
  'aspects',
  'dataPlatformInstance',
  'deprecation',
  'domain',
  'exists',
  'glossaryTerms',
  'institutionalMemory',
  'lastIngested',
  'lineage',
  'ownership',
  'relationships',
  'status',
  'tags',
];

/** A dataset's `properties`: its name falls back to the key's, `lastModified` to time 0, as DataHub answers them. */
const datasetProperties: Spec = fromAspect('datasetProperties', (value, view) => {
  const key = view.key();
  const created = recordOf(value['created']);
  const modified = recordOf(value['lastModified']);
  return {
    __urn: view.urn,
    name: textOf(value['name']) ?? textOf(key['name']) ?? '',
    description: textOf(value['description']) ?? null,
    externalUrl: textOf(value['externalUrl']) ?? null,
    qualifiedName: textOf(value['qualifiedName']) ?? null,
    customProperties: value['customProperties'] ?? null,
    origin: key['origin'] ?? null,
    created: numberOf(created?.['time']) ?? null,
    createdActor: textOf(created?.['actor']) ?? null,
    lastModified: modified === undefined ? { time: 0, actor: null } : auditStampOf(modified),
    lastModifiedActor: textOf(modified?.['actor']) ?? null,
  };
});

/** `deprecation` of a dataset: the `deprecation` aspect, else its legacy `datasetDeprecation`. */
const datasetDeprecation: Spec = (view) => {
  const value = view.aspect('deprecation') ?? view.aspect('datasetDeprecation');
  return value === undefined ? null : deprecationOf(value);
};

const editableDescription = (aspect: string): Spec =>
  fromAspect(aspect, (value) => ({ description: value['description'] ?? null }));

/** The platform a data platform instance aspect names, else `fallback`. */
const platformOrElse =
  (fallback: (view: EntityView) => string | null): Spec =>
  (view) =>
    textOf(view.aspect('dataPlatformInstance')?.['platform']) ?? fallback(view);

/** A chart or dashboard: its id and tool from the key, its platform being the tool's. */
function chartLike(
  idField: string,
  infoAspect: string,
  urlField: 'chartUrl' | 'dashboardUrl',
  editable: string,
): Fields {
  const info = fromAspect(infoAspect, (value, view) => chartLikeInfoOf(value, view.urn, urlField));
  return {
    ...shared(...ASSET, 'globalTags', 'lineage'),
    [idField]: keyPart(idField),
    tool: keyPart('dashboardTool'),
    platform: (view) => platformUrnOf(keyText(view, 'dashboardTool')),
    info,
    properties: info,
    editableProperties: editableDescription(editable),
  };
}

/** A user's `info`/`properties`: `corpUserInfo`, its manager as a user. */
const corpUserInfo: Spec = fromAspect('corpUserInfo', (value, view) => ({
  ...mirrored(value, view.urn),
  manager: textOf(value['managerUrn']) ?? null,
}));

/** The key's name or, for a glossary term, its last part (`Classification.PII` → `PII`). */
const termName = (view: EntityView): string => glossaryTermNameOf(keyText(view, 'name'));

/** An ML model's or group's properties: the name falls back to the key's. */
function mlPropertiesOf(aspect: string, map: (value: Value, view: EntityView) => Value): Spec {
  return fromAspect(aspect, (value, view) => ({
    ...mirrored(value, view.urn),
    name: textOf(value['name']) ?? textOf(view.key()['name']) ?? null,
    created: timeStampAsAuditStamp(value['created']),
    lastModified: timeStampAsAuditStamp(value['lastModified']),
    ...map(value, view),
  }));
}

/** Every entity type the API serves, field by field. */
export const ENTITY_FIELDS: Readonly<Record<string, Fields>> = {
  Dataset: {
    ...shared(...ASSET, 'globalTags', 'lineage'),
    deprecation: datasetDeprecation,
    name: keyPart('name'),
    origin: keyPart('origin'),
    platform: keyPart('platform'),
    description: textIn('datasetProperties', 'description'),
    properties: datasetProperties,
    editableProperties: fromAspect('editableDatasetProperties', (value) => ({
      description: value['description'] ?? null,
      name: value['name'] ?? null,
    })),
    schemaMetadata: (view, args) => schemaMetadataAt(view, args['version'] as number | null | undefined),
    editableSchemaMetadata: fromAspect('editableSchemaMetadata', (value, view) =>
      editableSchemaMetadataOf(value, view.urn),
    ),
    datasetProfiles: (view, args) => datasetProfilesOf(view, args),
    usageStats: (view, args) => usageStatsOf(view, args),
  },
  VersionedDataset: {
    ...shared(
      'container',
      'domain',
      'glossaryTerms',
      'institutionalMemory',
      'ownership',
      'parentContainers',
      'status',
      'subTypes',
      'tags',
    ),
    deprecation: datasetDeprecation,
    name: keyPart('name'),
    origin: keyPart('origin'),
    platform: keyPart('platform'),
    properties: datasetProperties,
    editableProperties: fromAspect('editableDatasetProperties', (value) => ({
      description: value['description'] ?? null,
      name: value['name'] ?? null,
    })),
    editableSchemaMetadata: fromAspect('editableSchemaMetadata', (value, view) =>
      editableSchemaMetadataOf(value, view.urn),
    ),
    // DataHub answers no relationships for a dataset at a version.
    relationships: () => null,
  },
  Chart: chartLike('chartId', 'chartInfo', 'chartUrl', 'editableChartProperties'),
  Dashboard: chartLike('dashboardId', 'dashboardInfo', 'dashboardUrl', 'editableDashboardProperties'),
  DataFlow: {
    ...shared(...ASSET, 'globalTags', 'lineage'),
    flowId: keyPart('flowId'),
    cluster: keyPart('cluster'),
    orchestrator: keyPart('orchestrator'),
    platform: (view) => platformUrnOf(keyText(view, 'orchestrator')),
    info: mirrorOf('dataFlowInfo'),
    properties: mirrorOf('dataFlowInfo'),
    editableProperties: editableDescription('editableDataFlowProperties'),
  },
  DataJob: {
    ...shared(...ASSET, 'globalTags', 'lineage'),
    jobId: keyPart('jobId'),
    dataFlow: keyPart('flow'),
    // The platform instance's platform, else that of the flow's orchestrator (the flow URN's first part).
    platform: platformOrElse((view) => {
      const orchestrator = /^urn:li:dataFlow:\(([^,]+),/.exec(keyText(view, 'flow'))?.[1];
      return orchestrator === undefined ? null : platformUrnOf(orchestrator);
    }),
    info: mirrorOf('dataJobInfo'),
    properties: mirrorOf('dataJobInfo'),
    editableProperties: editableDescription('editableDataJobProperties'),
  },
  Container: {
    ...shared(...ASSET),
    platform: platformOrElse(() => UNKNOWN_PLATFORM_URN),
    properties: mirrorOf('containerProperties'),
    editableProperties: editableDescription('editableContainerProperties'),
  },
  CorpUser: {
    ...shared('aspects', 'exists', 'globalTags', 'relationships', 'tags'),
    username: keyPart('username'),
    info: corpUserInfo,
    properties: corpUserInfo,
    editableInfo: mirrorOf('corpUserEditableInfo'),
    editableProperties: mirrorOf('corpUserEditableInfo'),
    status: textIn('corpUserStatus', 'status'),
  },
  CorpGroup: {
    ...shared('aspects', 'exists', 'ownership'),
    // DataHub leaves out the members that are gone, unless asked for soft-deleted ones.
    relationships: (view, args) => relationshipsOf(view, args['input'] as Parameters<typeof relationshipsOf>[1], true),
    name: keyPart('name'),
    info: mirrorOf('corpGroupInfo'),
    properties: mirrorOf('corpGroupInfo'),
    editableProperties: mirrorOf('corpGroupEditableInfo'),
    origin: mirrorOf('origin'),
  },
  Tag: {
    ...shared('aspects', 'ownership', 'relationships'),
    name: keyPart('name'),
    description: textIn('tagProperties', 'description'),
    properties: fromAspect('tagProperties', (value, view) => ({
      name: textOf(value['name']) ?? textOf(view.key()['name']) ?? '',
      description: value['description'] ?? null,
      colorHex: value['colorHex'] ?? null,
    })),
    // No aspect holds a tag's editable properties (DataHub answers none either).
    editableProperties: () => null,
  },
  GlossaryTerm: {
    ...shared(
      'aspects',
      'deprecation',
      'domain',
      'exists',
      'institutionalMemory',
      'ownership',
      'relationships',
      'status',
    ),
    name: termName,
    hierarchicalName: keyPart('name'),
    properties: fromAspect('glossaryTermInfo', (value, view) => ({
      ...mirrored(value, view.urn),
      name: textOf(value['name']) ?? termName(view),
      definition: textOf(value['definition']) ?? '',
      description: textOf(value['definition']) ?? null,
      termSource: textOf(value['termSource']) ?? '',
    })),
    parentNodes: (view) => parentNodesOf(view),
    schemaMetadata: (view, args) => schemaMetadataAt(view, args['version'] as number | null | undefined),
  },
  GlossaryNode: {
    ...shared('aspects', 'exists', 'institutionalMemory', 'ownership', 'relationships'),
    // Always there: the name falls back to the key's, as DataHub answers it.
    properties: (view) => {
      const info = view.aspect('glossaryNodeInfo');
      return {
        __urn: view.urn,
        name: textOf(info?.['name']) ?? textOf(view.key()['name']) ?? '',
        description: textOf(info?.['definition']) ?? null,
        customProperties: info?.['customProperties'] ?? null,
      };
    },
    parentNodes: (view) => parentNodesOf(view),
  },
  Domain: {
    ...shared('aspects', 'institutionalMemory', 'ownership', 'relationships'),
    id: keyPart('id'),
    properties: mirrorOf('domainProperties'),
  },
  DataProduct: {
    ...shared('aspects', 'domain', 'glossaryTerms', 'institutionalMemory', 'ownership', 'relationships', 'tags'),
    properties: fromAspect('dataProductProperties', (value, view) => ({
      ...mirrored(value, view.urn),
      name: textOf(value['name']) ?? textOf(view.key()['id']) ?? '',
      numAssets: listOf(value['assets']).length,
    })),
  },
  DataPlatform: {
    ...shared('lastIngested', 'relationships'),
    name: keyPart('platformName'),
    displayName: textIn('dataPlatformInfo', 'displayName'),
    info: mirrorOf('dataPlatformInfo'),
    properties: mirrorOf('dataPlatformInfo'),
  },
  DataPlatformInstance: {
    ...shared('deprecation', 'institutionalMemory', 'ownership', 'relationships', 'status', 'tags'),
    instanceId: keyPart('instance'),
    platform: keyPart('platform'),
    properties: mirrorOf('dataPlatformInstanceProperties'),
  },
  MLModel: {
    ...shared(...ML, 'browsePathV2', 'globalTags'),
    name: keyPart('name'),
    origin: keyPart('origin'),
    platform: keyPart('platform'),
    description: textIn('mlModelProperties', 'description'),
    editableProperties: editableDescription('editableMlModelProperties'),
    properties: mlPropertiesOf('mlModelProperties', (value) => ({
      version: textOf(recordOf(value['version'])?.['versionTag']) ?? null,
    })),
  },
  MLModelGroup: {
    ...shared(...ML, 'browsePathV2'),
    name: keyPart('name'),
    origin: keyPart('origin'),
    platform: keyPart('platform'),
    description: textIn('mlModelGroupProperties', 'description'),
    editableProperties: editableDescription('editableMlModelGroupProperties'),
    properties: mlPropertiesOf('mlModelGroupProperties', () => ({})),
  },
  MLFeatureTable: {
    ...shared(...ML, 'browsePathV2'),
    name: keyPart('name'),
    platform: keyPart('platform'),
    description: textIn('mlFeatureTableProperties', 'description'),
    editableProperties: editableDescription('editableMlFeatureTableProperties'),
    properties: mirrorOf('mlFeatureTableProperties'),
  },
  MLFeature: {
    ...shared(...ML, 'browsePathV2'),
    name: keyPart('name'),
    featureNamespace: keyPart('featureNamespace'),
    description: textIn('mlFeatureProperties', 'description'),
    editableProperties: editableDescription('editableMlFeatureProperties'),
    properties: mirrorOf('mlFeatureProperties'),
  },
  MLPrimaryKey: {
    ...shared(...ML),
    name: keyPart('name'),
    featureNamespace: keyPart('featureNamespace'),
    description: textIn('mlPrimaryKeyProperties', 'description'),
    editableProperties: editableDescription('editableMlPrimaryKeyProperties'),
    properties: mirrorOf('mlPrimaryKeyProperties'),
  },
  SchemaFieldEntity: {
    ...shared('deprecation', 'glossaryTerms', 'lineage', 'relationships', 'status', 'tags'),
    fieldPath: keyPart('fieldPath'),
    parent: keyPart('parent'),
  },
  Document: {
    ...shared(
      'aspects',
      'browsePathV2',
      'dataPlatformInstance',
      'domain',
      'exists',
      'globalTags',
      'glossaryTerms',
      'institutionalMemory',
      'ownership',
      'relationships',
      'tags',
    ),
    platform: platformOrElse(() => DATAHUB_PLATFORM_URN),
    info: fromAspect('documentInfo', (value) => ({ title: value['title'] ?? null })),
    subType: fromAspect('subTypes', (value) => textOf(listOf(value['typeNames'])[0]) ?? null),
  },
  AccessTokenMetadata: {
    ...shared('relationships'),
    id: keyPart('id'),
    name: textIn('dataHubAccessTokenInfo', 'name'),
    description: textIn('dataHubAccessTokenInfo', 'description'),
    actorUrn: textIn('dataHubAccessTokenInfo', 'actorUrn'),
    ownerUrn: textIn('dataHubAccessTokenInfo', 'ownerUrn'),
    owner: textIn('dataHubAccessTokenInfo', 'ownerUrn'),
    createdAt: fromAspect('dataHubAccessTokenInfo', (value) => numberOf(value['createdAt']) ?? null),
    expiresAt: fromAspect('dataHubAccessTokenInfo', (value) => numberOf(value['expiresAt']) ?? null),
  },
  OwnershipTypeEntity: {
    ...shared('relationships', 'status'),
    info: mirrorOf('ownershipTypeInfo'),
  },
  ExecutionRequest: {
    ...shared('relationships'),
    id: keyPart('id'),
    input: fromAspect('dataHubExecutionRequestInput', (value, view) => ({
      __urn: view.urn,
      task: value['task'] ?? null,
      arguments: value['args'] ?? null,
      requestedAt: value['requestedAt'] ?? null,
      source: { type: textOf(recordOf(value['source'])?.['type']) ?? null },
    })),
    result: mirrorOf('dataHubExecutionRequestResult'),
  },
  Notebook: shared('aspects', 'exists', 'relationships'),
  Application: shared('aspects', 'relationships'),
  Assertion: shared('aspects', 'relationships'),
  DataHubRole: shared('aspects', 'relationships'),
  DataHubPageModule: shared('exists', 'relationships'),
  DataProcessInstance: shared('exists', 'relationships'),
  StructuredPropertyEntity: shared('exists', 'relationships'),
  ...Object.fromEntries(
    [
      'BusinessAttribute',
      'DataContract',
      'DataHubConnection',
      'DataHubFile',
      'DataHubPageTemplate',
      'DataHubPolicy',
      'DataHubView',
      'DataTypeEntity',
      'ERModelRelationship',
      'EntityTypeEntity',
      'Form',
      'Incident',
      'Post',
      'QueryEntity',
      'Role',
      'ServiceAccount',
      'Test',
      'VersionSet',
    ].map((type) => [type, shared('relationships')]),
  ),
};

/**
 * A field's resolver: its entity read (batched), then its spec; null when the read answers no entity. An entity handed
 * on with the field's value already (a token from the token routes, an execution request of a listing) answers that
 * value, as the default resolver would.
 */
function entityField(spec: Spec): FieldResolver {
  return async (source, args: Readonly<Record<string, unknown>>, context, info) => {
    if (recordOf(source)?.[info.fieldName] !== undefined) return adaptingFieldResolver(source, args, context, info);
    const view = await viewOf(source, context);
    // A URN where an entity is expected becomes that entity, as the default resolver makes it.
    return view === null ? null : adapt(await spec(view, args), info.returnType, { __urn: view.urn });
  };
}

/** The resolvers of every entity type's fields. */
export const entityFieldResolvers: ResolverMap = Object.fromEntries(
  Object.entries(ENTITY_FIELDS).map(([type, fields]) => [
    type,
    Object.fromEntries(Object.entries(fields).map(([name, spec]) => [name, entityField(spec)])),
  ]),
);
