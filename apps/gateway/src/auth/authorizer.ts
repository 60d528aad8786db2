import {
  apiPrivileges,
  decide,
  operationOfChangeType,
  PlatformPrivilege,
  SYSTEM_ACTOR,
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

  /** Whether `actor` holds any one set of the privileges on the resource. */
  async allows(actor: string, requirement: PrivilegeRequirement, resource?: ResourceFacts): Promise<boolean> {
    if (actor === SYSTEM_ACTOR) return true;
    const snapshot = await this.options.security.snapshot();
    const [principal, policies] = await Promise.all([snapshot.principal(actor), snapshot.policies()]);
    return decide(policies, { urn: actor, groups: principal.groups, roles: principal.roles }, requirement, resource)
      .allowed;
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
