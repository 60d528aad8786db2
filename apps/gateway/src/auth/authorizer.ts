import {
  apiPrivileges,
  decide,
  operationOfChangeType,
  PlatformPrivilege,
  SYSTEM_ACTOR,
  type PolicyInfo,
  type PrivilegeRequirement,
  type ResourceFacts,
} from '@strata/auth';
import type { RequestContext } from '@strata/http';
import { ForbiddenError, UnauthorizedError, type ValidatedProposal } from '@strata/model';
import { UNAUTHORIZED_MESSAGE } from './authenticator';
import type { SecuritySnapshot } from './security-view';

export interface AuthorizerOptions {
  /** `METADATA_SERVICE_AUTH_ENABLED`. */
  readonly enabled: boolean;
  readonly anonymousActor: string;
  readonly security: { snapshot(): Promise<SecuritySnapshot> };
  /**
   * What policies may ask of entities beyond their type and URN — owners, tags, domains, containers, terms — read
   * only when a decision depends on them. Absent: no such facts, so owner and field clauses never hold.
   */
  readonly facts?: (urns: readonly string[]) => Promise<ReadonlyMap<string, ResourceFacts>>;
}

/** What a check needs: the privileges (any one set), what they concern, and the 403's message. */
export interface Check {
  readonly requirement: PrivilegeRequirement;
  readonly resource?: ResourceFacts;
  readonly message: string;
  /**
   * Checked even while authentication is off: the security entities (credentials, policies, tokens, secrets) and the
   * endpoints that manage them are never open to an anonymous caller.
   */
  readonly always?: boolean;
}

/**
 * Privileges as the gateway checks them, against the policies of the catalog (read through the security view, so a
 * policy change holds from the next request on): the system actor may do anything; an anonymous caller is refused
 * with 401 where credentials are needed; anyone else needs what the check requires, or gets 403 with its message.
 * While authentication is off, only the checks marked `always` apply.
 */
export class Authorizer {
  constructor(private readonly options: AuthorizerOptions) {}

  /** Whether checks that are not `always` apply. */
  get enabled(): boolean {
    return this.options.enabled;
  }

  /** Refuses an anonymous caller with 401, whether authentication is on or off. */
  requireCredentials(context: RequestContext): void {
    if (context.actor === this.options.anonymousActor) throw new UnauthorizedError(UNAUTHORIZED_MESSAGE);
  }

  async require(context: RequestContext, check: Check): Promise<void> {
    if (!this.options.enabled && check.always !== true) return;
    if (context.actor === SYSTEM_ACTOR) return;
    if (context.actor === this.options.anonymousActor) throw new UnauthorizedError(UNAUTHORIZED_MESSAGE);
    if (!(await this.allows(context.actor, check.requirement, check.resource))) throw new ForbiddenError(check.message);
  }

  /**
   * Whether `actor` holds any one set of the privileges on the resource. An entity's owners and other fields are read
   * only when some policy asks about them and the answer is not yes without them.
   */
  async allows(actor: string, requirement: PrivilegeRequirement, resource?: ResourceFacts): Promise<boolean> {
    return (await this.denied(actor, requirement, resource === undefined ? [undefined] : [resource])).length === 0;
  }

  /** The resources (of `resources`) on which `actor` does not hold the requirement. */
  async denied(
    actor: string,
    requirement: PrivilegeRequirement,
    resources: readonly (ResourceFacts | undefined)[],
  ): Promise<(ResourceFacts | undefined)[]> {
    if (actor === SYSTEM_ACTOR) return [];
    const snapshot = await this.options.security.snapshot();
    const [principal, policies] = await Promise.all([snapshot.principal(actor), snapshot.policies()]);
    const identity = { urn: actor, groups: principal.groups, roles: principal.roles };
    const refused = resources.filter((resource) => !decide(policies, identity, requirement, resource).allowed);
    const facts = this.options.facts;
    if (refused.length === 0 || facts === undefined || !policies.some(asksForFacts)) return refused;
    const urns = [...new Set(refused.flatMap((resource) => (resource?.urn ? [resource.urn] : [])))];
    if (urns.length === 0) return refused;
    const found = await facts(urns);
    return refused.filter((resource) => {
      const known = resource?.urn === undefined ? undefined : found.get(resource.urn);
      return known === undefined || !decide(policies, identity, requirement, known).allowed;
    });
  }

  /**
   * With authentication on, refuses the writes the caller may not make: each proposal is checked as DataHub checks
   * it — an UPDATE of the entity for a CREATE, UPSERT, PATCH or RESTATE, a CREATE for a CREATE_ENTITY, a DELETE — and
   * the 403 names every one refused. The security entities are checked whether authentication is on or off.
   */
  async requireWrites(context: RequestContext, proposals: readonly ValidatedProposal[]): Promise<void> {
    await this.requireSecurityWrites(context, proposals);
    if (!this.options.enabled || context.actor === SYSTEM_ACTOR || proposals.length === 0) return;
    if (context.actor === this.options.anonymousActor) throw new UnauthorizedError(UNAUTHORIZED_MESSAGE);
    const refused: string[] = [];
    // One decision per (operation, entity): a batch of 1,000 values of 10 entities asks ten questions.
    const groups = new Map<string, { requirement: PrivilegeRequirement; resource: ResourceFacts }>();
    for (const proposal of proposals) {
      const operation = operationOfChangeType(proposal.changeType) ?? 'UPDATE';
      const urn = proposal.urn.toString();
      groups.set(`${operation}\u0000${urn}`, {
        requirement: apiPrivileges('ENTITY', operation, proposal.entity.name),
        resource: { type: proposal.entity.name, urn },
      });
    }
    for (const { requirement, resource } of groups.values()) {
      if ((await this.denied(context.actor, requirement, [resource])).length > 0) {
        refused.push(`HttpStatus: 403 Urn: ${resource.urn ?? ''}`);
      }
    }
    if (refused.length > 0) {
      throw new ForbiddenError(
        `User ${context.actor} is unauthorized to modify entity: ${[...new Set(refused)].join(', ')}`,
      );
    }
  }

  /**
   * Refuses writes of the security entities by callers without the privilege that guards them, whether authentication
   * is on or off: a user's credentials (`MANAGE_USER_CREDENTIALS`), policies (`MANAGE_POLICIES`), access tokens
   * (`MANAGE_ACCESS_TOKENS`) and secrets (`MANAGE_SECRETS`). The 403 names every proposal refused, in DataHub's words.
   */
  async requireSecurityWrites(context: RequestContext, proposals: readonly ValidatedProposal[]): Promise<void> {
    const guarded = proposals.filter((proposal) => guardOf(proposal) !== undefined);
    if (guarded.length === 0 || context.actor === SYSTEM_ACTOR) return;
    if (context.actor === this.options.anonymousActor) throw new UnauthorizedError(UNAUTHORIZED_MESSAGE);
    const refused: string[] = [];
    for (const proposal of guarded) {
      const requirement = guardOf(proposal) ?? [];
      const urn = proposal.urn.toString();
      if (!(await this.allows(context.actor, requirement, { type: proposal.entity.name, urn }))) {
        refused.push(`HttpStatus: 403 Urn: ${urn}`);
      }
    }
    if (refused.length > 0) {
      throw new ForbiddenError(`User ${context.actor} is unauthorized to modify entity: ${refused.join(', ')}`);
    }
  }
}

/** The filter fields decided from the request alone; any other needs the entity's aspects. */
const REQUEST_FIELDS = new Set(['TYPE', 'RESOURCE_TYPE', 'URN', 'RESOURCE_URN']);

/** Whether a policy's decision may depend on an entity's owners or aspects. */
function asksForFacts(policy: { readonly info: PolicyInfo }): boolean {
  if (policy.info.state === 'INACTIVE') return false;
  if (policy.info.actors.resourceOwners === true) return true;
  const criteria = policy.info.resources?.filter?.criteria ?? [];
  return criteria.some((criterion) => !REQUEST_FIELDS.has(criterion.field.toUpperCase()));
}

/** Entity types that are security entities as a whole, whatever the aspect written. */
const GUARDED_ENTITY_TYPES = new Set(['dataHubPolicy', 'dataHubAccessToken', 'dataHubSecret']);

/** The privileges guarding a proposal's write, when it writes a security entity. */
function guardOf(proposal: ValidatedProposal): PrivilegeRequirement | undefined {
  if (proposal.entity.name === 'corpuser' && proposal.aspect.name === 'corpUserCredentials') {
    return [[PlatformPrivilege.MANAGE_USER_CREDENTIALS]];
  }
  if (!GUARDED_ENTITY_TYPES.has(proposal.entity.name)) return undefined;
  return apiPrivileges('ENTITY', operationOfChangeType(proposal.changeType) ?? 'UPDATE', proposal.entity.name);
}
