/**
 * What the caller may do to an entity (`privileges: EntityPrivileges` of the entity types DataHub answers it for) and
 * whether authentication is on (`AppConfig.authConfig`) — so that a client shows the edits the server would accept and
 * hides the others.
 *
 * Each answer is the check the edit's mutation makes, by the same authorizer on the same policies: the privilege the
 * mutation requires (EDIT_ENTITY or its finer privilege; with authentication off, none), the guard of the security
 * input its write changes (a user's `status`: MANAGE_USERS_AND_GROUPS, whether authentication is on or off), and
 * whether the mutation edits entities of that type at all (the type has the aspect it writes; a description editor for
 * it). A page of entities is one decision per entity: every entity's privileges asked at once, the entities' facts
 * (owners, tags, domains…) read once when some policy depends on them.
 */
import DataLoader from 'dataloader';
import { apiPrivileges, writeGuardOf, type PrivilegeRequirement, type ResourceFacts } from '@strata/auth';
import type { EntitySpec } from '@strata/model';
import type { GraphqlContext } from '../context';
import type { FieldResolver, ResolverMap } from '../schema';
import { viewOf } from './entities-view';
import { DESCRIBED, linksRequirement } from './mutations-docs';
import { TAGS, TERMS } from './mutations-labels';
import { editRequirement } from './mutations-support';

/** DataHub's `EntityPrivileges` fields Strata answers. */
export const PRIVILEGE_FIELDS = [
  'canEditDescription',
  'canEditTags',
  'canEditGlossaryTerms',
  'canEditOwners',
  'canEditLinks',
  'canEditDomains',
  'canEditDeprecation',
  'canManageEntity',
  'canEditSchemaFieldDescription',
  'canEditSchemaFieldTags',
  'canEditSchemaFieldGlossaryTerms',
  'canEditLineage',
  'canEditProperties',
  'canViewDatasetProfile',
  'canViewDatasetUsage',
  'canViewDatasetOperations',
] as const;

export type PrivilegeField = (typeof PRIVILEGE_FIELDS)[number];
export type EntityPrivileges = Readonly<Record<PrivilegeField, boolean>>;

/** The GraphQL types whose `privileges` Strata answers: DataHub's, of those it serves. */
export const PRIVILEGED_TYPES = [
  'Chart',
  'Container',
  'CorpGroup',
  'CorpUser',
  'Dashboard',
  'DataFlow',
  'DataJob',
  'DataProduct',
  'Dataset',
  'Domain',
  'GlossaryNode',
  'GlossaryTerm',
  'MLFeature',
  'MLFeatureTable',
  'MLModel',
  'MLModelGroup',
  'MLPrimaryKey',
] as const;

/**
 * What one answer takes:
 * - `edit`: a mutation's write — the privilege it requires while authentication is on, and the aspect it writes (the
 *   entity type must have it, and its security guard, if any, must hold);
 * - `view`: a read DataHub's resolver answers only to a caller holding the privilege (always while authentication is
 *   off), as the dataset's profile and usage fields do;
 * - `never`: the API makes no such edit of this entity type.
 */
export type Capability =
  | { readonly kind: 'edit'; readonly requirement: PrivilegeRequirement; readonly aspect: string }
  | { readonly kind: 'view'; readonly privilege: string }
  | { readonly kind: 'never' };

const NEVER: Capability = { kind: 'never' };
const GLOSSARY = new Set(['glossaryTerm', 'glossaryNode']);

/**
 * What each answer takes for an entity type, as the mutations check it (mutations-docs, -labels, -owners, -lifecycle):
 * - description: `updateDescription` of the types it describes, in their editable aspect;
 * - tags, terms, owners, links, domains, deprecation: the entity's own aspect, EDIT_ENTITY or the finer privilege
 *   (owners, links and domains of glossary entities also with MANAGE_GLOSSARIES);
 * - manage: soft deletion and restoring (`batchUpdateSoftDeleted`, the `status` aspect, DELETE_ENTITY), DataHub's
 *   "may delete this entity";
 * - a schema field's description, tags and terms: a dataset's `editableSchemaMetadata`;
 * - lineage and properties: Strata has no mutation of its own for them; they are written as proposals of the entity's
 *   aspects (lineage, editable properties), which need the entity's UPDATE (EDIT_ENTITY, or the platform privilege of
 *   users and groups);
 * - a dataset's profile, usage and operations: VIEW_DATASET_PROFILE, _USAGE, _OPERATIONS.
 */
export function capabilitiesOf(entity: EntitySpec): Readonly<Record<PrivilegeField, Capability>> {
  const type = entity.name;
  const glossary = GLOSSARY.has(type);
  const edit = (requirement: PrivilegeRequirement, aspect: string): Capability =>
    entity.aspect(aspect) === undefined ? NEVER : { kind: 'edit', requirement, aspect };
  const withGlossaries = (privilege: string) =>
    glossary ? editRequirement(privilege, 'MANAGE_GLOSSARIES') : editRequirement(privilege);
  const described = DESCRIBED[type];
  const dataset = type === 'dataset';
  const fieldEdit = (privilege: string): Capability =>
    dataset && entity.aspect('schemaMetadata') !== undefined
      ? edit(editRequirement(privilege), 'editableSchemaMetadata')
      : NEVER;
  const update = apiPrivileges('ENTITY', 'UPDATE', type);
  const lineageAspect = LINEAGE_ASPECTS[type];
  const propertiesAspect = PROPERTIES_ASPECTS[type];
  return {
    canEditDescription:
      described === undefined ? NEVER : edit(editRequirement(...described.privileges), described.aspect),
    canEditTags: edit(editRequirement(TAGS.entityPrivilege), TAGS.aspect),
    canEditGlossaryTerms: edit(editRequirement(TERMS.entityPrivilege), TERMS.aspect),
    canEditOwners: edit(withGlossaries('EDIT_ENTITY_OWNERS'), 'ownership'),
    canEditLinks: edit(linksRequirement({ urn: '', entity }), 'institutionalMemory'),
    canEditDomains: edit(withGlossaries('EDIT_DOMAINS_PRIVILEGE'), 'domains'),
    canEditDeprecation: edit(editRequirement('EDIT_DEPRECATION_PRIVILEGE'), 'deprecation'),
    canManageEntity: edit(editRequirement('DELETE_ENTITY'), 'status'),
    canEditSchemaFieldDescription: fieldEdit('EDIT_DATASET_COL_DESCRIPTION'),
    canEditSchemaFieldTags: fieldEdit(TAGS.fieldPrivilege),
    canEditSchemaFieldGlossaryTerms: fieldEdit(TERMS.fieldPrivilege),
    canEditLineage: lineageAspect === undefined ? NEVER : edit(update, lineageAspect),
    canEditProperties: propertiesAspect === undefined ? NEVER : edit(update, propertiesAspect),
    canViewDatasetProfile: dataset ? { kind: 'view', privilege: 'VIEW_DATASET_PROFILE' } : NEVER,
    canViewDatasetUsage: dataset ? { kind: 'view', privilege: 'VIEW_DATASET_USAGE' } : NEVER,
    canViewDatasetOperations: dataset ? { kind: 'view', privilege: 'VIEW_DATASET_OPERATIONS' } : NEVER,
  };
}

/** Where an entity type's lineage to its upstreams is written. */
const LINEAGE_ASPECTS: Readonly<Record<string, string>> = {
  dataset: 'upstreamLineage',
  dataJob: 'dataJobInputOutput',
  chart: 'chartInfo',
  dashboard: 'dashboardInfo',
  mlModel: 'mlModelProperties',
  mlModelGroup: 'mlModelGroupProperties',
  mlFeature: 'mlFeatureProperties',
  mlPrimaryKey: 'mlPrimaryKeyProperties',
};

/** Where an entity type's editable properties are written. */
const PROPERTIES_ASPECTS: Readonly<Record<string, string>> = {
  dataset: 'editableDatasetProperties',
  container: 'editableContainerProperties',
  chart: 'editableChartProperties',
  dashboard: 'editableDashboardProperties',
  dataFlow: 'editableDataFlowProperties',
  dataJob: 'editableDataJobProperties',
  corpuser: 'corpUserEditableInfo',
  corpGroup: 'corpGroupEditableInfo',
  domain: 'domainProperties',
  dataProduct: 'dataProductProperties',
  glossaryTerm: 'glossaryTermInfo',
  glossaryNode: 'glossaryNodeInfo',
  mlModel: 'editableMlModelProperties',
  mlModelGroup: 'editableMlModelGroupProperties',
  mlFeature: 'editableMlFeatureProperties',
  mlFeatureTable: 'editableMlFeatureTableProperties',
  mlPrimaryKey: 'editableMlPrimaryKeyProperties',
};

/** The privileges a capability asks of policies (on the entity, and on no resource for a write guard). */
function askedOf(entityType: string, capability: Capability): { onEntity: string[]; onPlatform: string[] } {
  switch (capability.kind) {
    case 'never':
      return { onEntity: [], onPlatform: [] };
    case 'view':
      return { onEntity: [capability.privilege], onPlatform: [] };
    case 'edit': {
      const guard = guardOf(entityType, capability.aspect);
      return { onEntity: capability.requirement.flat(), onPlatform: guard === undefined ? [] : [guard] };
    }
  }
}

function guardOf(entityType: string, aspect: string): string | undefined {
  return writeGuardOf({ entityType, aspect, changeType: 'PATCH' });
}

/** Whether the caller is the anonymous one (the authorizer refuses it where credentials are needed). */
function isAnonymous(context: GraphqlContext): boolean {
  const authorizer = context.authorizer;
  if (authorizer === undefined) return false;
  try {
    authorizer.requireCaller(context.request, true);
    return false;
  } catch {
    return true;
  }
}

/**
 * The privileges of the caller on each entity (`undefined` for an entity of a type the registry does not know): every
 * entity's questions asked in one decision.
 */
export async function privilegesOf(
  context: GraphqlContext,
  urns: readonly string[],
): Promise<(EntityPrivileges | undefined)[]> {
  const targets = urns.map((urn) => {
    const type = /^urn:li:([^:]+):/.exec(urn)?.[1];
    const entity = type === undefined ? undefined : context.registry.entity(type);
    return entity === undefined ? undefined : { urn, entity, capabilities: capabilitiesOf(entity) };
  });
  const authorizer = context.authorizer;
  const enabled = authorizer?.enabled === true;
  const anonymous = isAnonymous(context);
  const onEntity = new Set<string>();
  const onPlatform = new Set<string>();
  for (const target of targets) {
    if (target === undefined) continue;
    for (const capability of Object.values(target.capabilities)) {
      const asked = askedOf(target.entity.name, capability);
      if (enabled) asked.onEntity.forEach((privilege) => onEntity.add(privilege));
      asked.onPlatform.forEach((privilege) => onPlatform.add(privilege));
    }
  }
  const privileges = [...new Set([...onEntity, ...onPlatform])];
  const resources: (ResourceFacts | undefined)[] = [
    undefined,
    ...targets.map((target) => (target === undefined ? undefined : { type: target.entity.name, urn: target.urn })),
  ];
  // Nothing is asked when nothing depends on it: no check applies, or only guards, which anonymous never holds.
  const held =
    authorizer === undefined || privileges.length === 0 || (anonymous && !enabled)
      ? resources.map(() => new Set<string>())
      : await authorizer.held(context.request, privileges, resources);
  const platform = held[0] ?? new Set<string>();
  return targets.map((target, index) => {
    if (target === undefined) return undefined;
    const onIt = held[index + 1] ?? new Set<string>();
    const answer = (capability: Capability): boolean => {
      switch (capability.kind) {
        case 'never':
          return false;
        case 'view':
          return !enabled || onIt.has(capability.privilege);
        case 'edit': {
          // With authentication on, the mutation refuses an anonymous caller, then checks its privilege.
          if (enabled && (anonymous || !capability.requirement.some((set) => set.every((p) => onIt.has(p))))) {
            return false;
          }
          const guard = guardOf(target.entity.name, capability.aspect);
          // The guards of the security inputs hold whether authentication is on or off; never for anonymous.
          return guard === undefined || (!anonymous && platform.has(guard));
        }
      }
    };
    return Object.fromEntries(
      PRIVILEGE_FIELDS.map((field) => [field, answer(target.capabilities[field])]),
    ) as EntityPrivileges;
  });
}

/** One loader per request, so that a page of entities asking their privileges is one decision. */
const loaders = new WeakMap<GraphqlContext, DataLoader<string, EntityPrivileges | undefined>>();

function loaderOf(context: GraphqlContext): DataLoader<string, EntityPrivileges | undefined> {
  let loader = loaders.get(context);
  if (loader === undefined) {
    loader = new DataLoader((urns) => privilegesOf(context, urns), { maxBatchSize: 1000 });
    loaders.set(context, loader);
  }
  return loader;
}

/** Every answer no: what a caller may do to an entity that does not exist (each mutation refuses it). */
const NOTHING = Object.fromEntries(PRIVILEGE_FIELDS.map((field) => [field, false])) as EntityPrivileges;

const privileges: FieldResolver = async (source, _args, context: GraphqlContext) => {
  const view = await viewOf(source, context);
  if (view === null) return null;
  if (!view.exists()) return NOTHING;
  return (await loaderOf(context).load(view.urn)) ?? null;
};

/** Whether authentication is on: what a client needs to know to offer logging in. */
const authConfig: FieldResolver = (_source, _args, context: GraphqlContext) => ({
  tokenAuthEnabled: context.authorizer?.enabled === true,
});

/** `privileges` of each entity type that has it (merged into the entity types' fields by `entities.ts`). */
export const privilegesFieldResolvers: ResolverMap = Object.fromEntries(
  PRIVILEGED_TYPES.map((type) => [type, { privileges }]),
);

/** `AppConfig.authConfig`. */
export const authConfigResolvers: ResolverMap = { AppConfig: { authConfig } };
