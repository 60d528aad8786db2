import type { PrivilegeRequirement } from './privileges';

/** The system actor: the platform itself, allowed everything (as DataHub's system client is). */
export const SYSTEM_ACTOR = 'urn:li:corpuser:__datahub_system';

/** A `dataHubPolicyInfo` value, as far as deciding reads it. */
export interface PolicyInfo {
  readonly type: string;
  readonly state: string;
  readonly privileges: readonly string[];
  readonly actors: {
    readonly users?: readonly string[];
    readonly groups?: readonly string[];
    readonly roles?: readonly string[];
    readonly allUsers?: boolean;
    readonly allGroups?: boolean;
    readonly resourceOwners?: boolean;
    readonly resourceOwnersTypes?: readonly string[];
  };
  readonly resources?: {
    readonly type?: string;
    readonly resources?: readonly string[];
    readonly allResources?: boolean;
    readonly filter?: { readonly criteria: readonly PolicyCriterion[] };
  };
}

export interface PolicyCriterion {
  readonly field: string;
  readonly values: readonly string[];
  readonly condition?: 'EQUALS' | 'STARTS_WITH' | 'NOT_EQUALS';
}

export interface Policy {
  readonly urn: string;
  readonly info: PolicyInfo;
}

/** Who asks: the user, the groups it is a member of, and the roles it holds itself or through a group. */
export interface ActorIdentity {
  readonly urn: string;
  readonly groups: readonly string[];
  readonly roles: readonly string[];
}

/**
 * What a check concerns: an entity type, the entity when there is one (a search concerns a type only), and what the
 * policies' filters and owner clauses may ask of it — its owners (with their ownership types) and the values of the
 * other filter fields (`TAG`, `DOMAIN`, `CONTAINER`, …), as the caller resolved them.
 */
export interface ResourceFacts {
  readonly type: string;
  readonly urn?: string;
  readonly owners?: readonly { readonly owner: string; readonly typeUrn?: string }[];
  readonly fields?: Readonly<Partial<Record<string, readonly string[]>>>;
}

export interface Decision {
  readonly allowed: boolean;
  /** The policies that granted it (one per privilege required), or why not. */
  readonly reason: string;
}

/** The filter fields a policy may name that resolve from the request itself; others from the resource's aspects. */
const TYPE_FIELDS = new Set(['TYPE', 'RESOURCE_TYPE']);
const URN_FIELDS = new Set(['URN', 'RESOURCE_URN']);

/**
 * Decides, as DataHub's policy engine does, whether `actor` may do what needs `requirement` (any one set of privileges,
 * each held) on `resource`:
 * - the system actor may do anything;
 * - a privilege is held when an active policy (any state but INACTIVE) lists it, selects the actor — a listed user, all
 *   users, a listed group or role of the actor's, all groups when the actor has one, or, failing those, an owner of the
 *   resource when the policy says resource owners (of the listed ownership types) — and selects the resource: a
 *   PLATFORM policy always does, a METADATA one with no resource filter does, otherwise every criterion must hold;
 * - every actor may read its own entity ("view self").
 */
export function decide(
  policies: readonly Policy[],
  actor: ActorIdentity,
  requirement: PrivilegeRequirement,
  resource?: ResourceFacts,
): Decision {
  if (actor.urn === SYSTEM_ACTOR) return { allowed: true, reason: 'the system actor' };
  const candidates = [...policies, viewSelf(actor.urn)];
  for (const privileges of requirement) {
    if (privileges.length === 0) continue;
    const granting: string[] = [];
    for (const privilege of privileges) {
      const policy = candidates.find((candidate) => grants(candidate.info, privilege, actor, resource));
      if (policy === undefined) break;
      granting.push(policy.urn);
    }
    if (granting.length === privileges.length) {
      return { allowed: true, reason: `granted by ${[...new Set(granting)].join(', ')}` };
    }
  }
  const wanted = requirement.map((set) => set.join(' and ')).join(' or ');
  return { allowed: false, reason: `no policy grants ${wanted === '' ? 'this' : wanted}` };
}

function grants(policy: PolicyInfo, privilege: string, actor: ActorIdentity, resource: ResourceFacts | undefined) {
  if (!policy.privileges.includes(privilege) || policy.state === 'INACTIVE') return false;
  const { actors } = policy;
  const selected =
    actors.allUsers === true ||
    (actors.users ?? []).includes(actor.urn) ||
    (actors.allGroups === true && actor.groups.length > 0) ||
    (actors.groups ?? []).some((group) => actor.groups.includes(group)) ||
    (actors.roles ?? []).some((role) => actor.roles.includes(role));
  if (selected) return resourceMatches(policy, resource);
  if (actors.resourceOwners !== true) return false;
  return resourceMatches(policy, resource) && owns(actor, resource, actors.resourceOwnersTypes);
}

function owns(actor: ActorIdentity, resource: ResourceFacts | undefined, types: readonly string[] | undefined) {
  return (resource?.owners ?? []).some(
    (owner) =>
      (types === undefined || types.length === 0 || (owner.typeUrn !== undefined && types.includes(owner.typeUrn))) &&
      (owner.owner === actor.urn || actor.groups.includes(owner.owner)),
  );
}

function resourceMatches(policy: PolicyInfo, resource: ResourceFacts | undefined): boolean {
  if (policy.type === 'PLATFORM' || policy.resources === undefined) return true;
  const criteria = criteriaOf(policy.resources);
  if (criteria.length === 0) return true;
  if (resource === undefined) return false;
  return criteria.every((criterion) => criterionHolds(criterion, resource));
}

/** The criteria of a resource filter, the deprecated `type` and `resources` read as DataHub reads them. */
function criteriaOf(resources: NonNullable<PolicyInfo['resources']>): readonly PolicyCriterion[] {
  if (resources.filter !== undefined) return resources.filter.criteria;
  const criteria: PolicyCriterion[] = [];
  if (resources.type !== undefined && resources.type !== '') criteria.push({ field: 'TYPE', values: [resources.type] });
  if (resources.resources !== undefined && resources.allResources !== true) {
    criteria.push({ field: 'URN', values: resources.resources });
  }
  return criteria;
}

function criterionHolds(criterion: PolicyCriterion, resource: ResourceFacts): boolean {
  const field = criterion.field.toUpperCase();
  const found = TYPE_FIELDS.has(field)
    ? [resource.type]
    : URN_FIELDS.has(field)
      ? resource.urn === undefined || resource.urn === ''
        ? []
        : [resource.urn]
      : field === 'OWNER'
        ? (resource.owners ?? []).map((owner) => owner.owner)
        : resource.fields?.[field];
  if (found === undefined) return false; // a field nobody resolved (or no field at all): never holds
  switch (criterion.condition ?? 'EQUALS') {
    case 'EQUALS':
      return criterion.values.some((value) => found.includes(value));
    case 'STARTS_WITH':
      return found.some((value) => criterion.values.some((prefix) => value.startsWith(prefix)));
    case 'NOT_EQUALS':
      return !criterion.values.some((value) => found.includes(value));
    default:
      return false;
  }
}

/** DataHub's built-in policy: every user may read its own entity. */
function viewSelf(actor: string): Policy {
  return {
    urn: 'urn:li:dataHubPolicy:view-self',
    info: {
      type: 'METADATA',
      state: 'ACTIVE',
      privileges: ['VIEW_ENTITY_PAGE', 'GET_ENTITY_PRIVILEGE'],
      actors: { users: [actor] },
      resources: { filter: { criteria: [{ field: 'URN', values: [actor], condition: 'EQUALS' }] } },
    },
  };
}
