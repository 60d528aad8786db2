import {
  apiPrivileges,
  creationGuardOf,
  decide,
  operationOfChangeType,
  SYSTEM_ACTOR,
  writeGuardOf,
  type PolicyInfo,
  type PrivilegeRequirement,
  type ResourceFacts,
} from '@strata/auth';
import type { RequestContext } from '@strata/http';
import { CREATION_REQUIRES_HEADER, ForbiddenError, UnauthorizedError, type ValidatedProposal } from '@strata/model';
import { UNAUTHORIZED_MESSAGE } from './authenticator';
import type { SecuritySnapshot } from './security-view';

export interface AuthorizerOptions {
  /** `METADATA_SERVICE_AUTH_ENABLED`. */
  readonly enabled: boolean;
  readonly anonymousActor: string;
  readonly security: { snapshotFor(context: RequestContext): Promise<SecuritySnapshot> };
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

  /** Refuses an anonymous caller with 401 — with authentication on, or `always`. */
  requireCaller(context: RequestContext, always: boolean): void {
    if (!this.options.enabled && !always) return;
    if (context.actor === this.options.anonymousActor) throw new UnauthorizedError(UNAUTHORIZED_MESSAGE);
  }

  async require(context: RequestContext, check: Check): Promise<void> {
    if (!this.options.enabled && check.always !== true) return;
    if (context.actor === SYSTEM_ACTOR) return;
    if (context.actor === this.options.anonymousActor) throw new UnauthorizedError(UNAUTHORIZED_MESSAGE);
    if (!(await this.allows(context, check.requirement, check.resource))) throw new ForbiddenError(check.message);
  }

  /**
   * Whether `actor` holds any one set of the privileges on the resource. An entity's owners and other fields are read
   * only when some policy asks about them and the answer is not yes without them.
   */
  async allows(context: RequestContext, requirement: PrivilegeRequirement, resource?: ResourceFacts): Promise<boolean> {
    return (await this.denied(context, requirement, resource === undefined ? [undefined] : [resource])).length === 0;
  }

  /** The resources (of `resources`) on which `actor` does not hold the requirement. */
  async denied(
    context: RequestContext,
    requirement: PrivilegeRequirement,
    resources: readonly (ResourceFacts | undefined)[],
  ): Promise<(ResourceFacts | undefined)[]> {
    const actor = context.actor;
    if (actor === SYSTEM_ACTOR) return [];
    const snapshot = await this.options.security.snapshotFor(context);
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
   * Which of `privileges` the caller holds on each of `resources` (in their order; `undefined`: on no resource, as a
   * platform privilege is asked), each privilege decided alone as {@link denied} decides it — with one read of the
   * resources' facts for all of them, and only when some policy asks about them and some answer is not yes without
   * them. What a client asks to know which of its edits the server would accept, for a page of entities at once.
   */
  async held(
    context: RequestContext,
    privileges: readonly string[],
    resources: readonly (ResourceFacts | undefined)[],
  ): Promise<ReadonlySet<string>[]> {
    const actor = context.actor;
    if (actor === SYSTEM_ACTOR) return resources.map(() => new Set(privileges));
    const snapshot = await this.options.security.snapshotFor(context);
    const [principal, policies] = await Promise.all([snapshot.principal(actor), snapshot.policies()]);
    const identity = { urn: actor, groups: principal.groups, roles: principal.roles };
    const holding = (resource: ResourceFacts | undefined): ReadonlySet<string> =>
      new Set(privileges.filter((privilege) => decide(policies, identity, [[privilege]], resource).allowed));
    const answers = resources.map(holding);
    const facts = this.options.facts;
    if (facts === undefined || !policies.some(asksForFacts)) return answers;
    const urns = [
      ...new Set(
        resources.flatMap((resource, index) =>
          resource?.urn !== undefined && (answers[index]?.size ?? 0) < privileges.length ? [resource.urn] : [],
        ),
      ),
    ];
    if (urns.length === 0) return answers;
    const found = await facts(urns);
    return resources.map((resource, index) => {
      const known = resource?.urn === undefined ? undefined : found.get(resource.urn);
      return known === undefined ? (answers[index] ?? new Set()) : holding(known);
    });
  }

  /**
   * Authorizes the writes of one submission (see {@link WriteAuthorization}) and answers them as they may go on the
   * log: refused (401 for an anonymous caller, 403 naming every write refused) or allowed, a write that could create
   * a user the caller may not create carrying the precondition that keeps it from doing so
   * (`CREATION_REQUIRES_HEADER`).
   */
  async authorizeWrites(
    authorization: WriteAuthorization,
    proposals: readonly ValidatedProposal[],
  ): Promise<readonly ValidatedProposal[]> {
    switch (authorization.kind) {
      case 'system':
      case 'route':
        return proposals;
      case 'guards':
        return this.guarded(authorization.context, proposals);
      case 'policies':
        await this.requirePolicies(authorization.context, proposals);
        return proposals;
      case 'caller': {
        const allowed = await this.guarded(authorization.context, proposals);
        await this.requirePolicies(authorization.context, proposals);
        return allowed;
      }
    }
  }

  /**
   * With authentication on, refuses the writes the caller may not make: each proposal is checked as DataHub checks
   * it — an UPDATE of the entity for a CREATE, UPSERT, PATCH or RESTATE, a CREATE for a CREATE_ENTITY, a DELETE — and
   * the 403 names every one refused.
   */
  private async requirePolicies(context: RequestContext, proposals: readonly ValidatedProposal[]): Promise<void> {
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
      if ((await this.denied(context, requirement, [resource])).length > 0) {
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
   * The guards of the security inputs (`SECURITY_INPUTS` of `@strata/auth`), whether authentication is on or off:
   * a write of an input, the deletion of an entity with inputs, the explicit creation of one whose existence is read,
   * each needs its guard's platform privilege — asked of the platform, never of a resource, so that no fact an
   * unguarded write could change decides it. A caller who may not create users gets its other writes to users
   * marked so that they cannot create one either.
   */
  private async guarded(
    context: RequestContext,
    proposals: readonly ValidatedProposal[],
  ): Promise<readonly ValidatedProposal[]> {
    if (context.actor === SYSTEM_ACTOR) return proposals;
    const anonymous = context.actor === this.options.anonymousActor;
    const decided = new Map<string, Promise<boolean>>();
    const holds = (privilege: string): Promise<boolean> => {
      let answer = decided.get(privilege);
      if (answer === undefined) {
        answer = anonymous ? Promise.resolve(false) : this.allows(context, [[privilege]]);
        decided.set(privilege, answer);
      }
      return answer;
    };
    const refused = new Map<string, string>();
    const allowed: ValidatedProposal[] = [];
    for (const proposal of proposals) {
      const write = { entityType: proposal.entity.name, aspect: proposal.aspect.name, changeType: proposal.changeType };
      const guard = writeGuardOf(write);
      const urn = proposal.urn.toString();
      if (guard !== undefined) {
        if (!(await holds(guard))) refused.set(urn, `${proposal.aspect.name} needs ${guard}`);
        allowed.push(proposal);
        continue;
      }
      const creation = creationGuardOf(proposal.entity.name);
      allowed.push(
        creation === undefined || proposal.changeType === 'DELETE' || (await holds(creation))
          ? proposal
          : { ...proposal, headers: { ...proposal.headers, [CREATION_REQUIRES_HEADER]: creation } },
      );
    }
    if (refused.size === 0) return allowed;
    if (anonymous) throw new UnauthorizedError(UNAUTHORIZED_MESSAGE);
    throw new ForbiddenError(
      `User ${context.actor} is unauthorized to modify entity: ${[...refused.keys()]
        .map((urn) => `HttpStatus: 403 Urn: ${urn}`)
        .join(', ')} (${[...new Set(refused.values())].join('; ')})`,
    );
  }
}

/**
 * How the writes of one submission are authorized — every submission says, so that no write reaches the log
 * unchecked by accident:
 * - `caller`: as the caller — the policies on each entity (with authentication on) and the security inputs' guards;
 * - `guards`: the guards only, the rest being the route's own privilege (rolling back a run, cleaning references,
 *   pushing test results);
 * - `policies`: the policies only (a right asked of an entity that is not written, as cleaning references asks the
 *   right to delete what they name);
 * - `route`: the route checked the privilege these writes need itself (`because` says which);
 * - `system`: the gateway's own writes, as the system actor (what it writes at start).
 */
export type WriteAuthorization =
  | { readonly kind: 'caller' | 'guards' | 'policies'; readonly context: RequestContext }
  | { readonly kind: 'route'; readonly because: string }
  | { readonly kind: 'system' };

/** The filter fields decided from the request alone; any other needs the entity's aspects. */
const REQUEST_FIELDS = new Set(['TYPE', 'RESOURCE_TYPE', 'URN', 'RESOURCE_URN']);

/** Whether a policy's decision may depend on an entity's owners or aspects. */
function asksForFacts(policy: { readonly info: PolicyInfo }): boolean {
  if (policy.info.state === 'INACTIVE') return false;
  if (policy.info.actors.resourceOwners === true) return true;
  const criteria = policy.info.resources?.filter?.criteria ?? [];
  return criteria.some((criterion) => !REQUEST_FIELDS.has(criterion.field.toUpperCase()));
}
