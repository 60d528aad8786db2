import { PlatformPrivilege } from './privileges';

/**
 * The marks the metadata-writer sets in the primary store, in the same commit, whenever a security input it covers
 * changes — so that a gateway, comparing them with the ones it saw, knows with one small read per request whether
 * what it cached still holds (docs/adr/0020).
 */
export const SecurityMark = {
  /** A policy changed. */
  policies: 'security.policies',
  /** Who someone is changed: a user came or went, was soft-deleted or suspended, changed groups or roles; a token. */
  principals: 'security.principals',
} as const;

export type SecurityMarkName = (typeof SecurityMark)[keyof typeof SecurityMark];

/** One security input: what reads it, the privilege a write of it needs, and the mark its change sets. */
export interface SecurityInput {
  /** Who reads it, and for what: the reason it is guarded. */
  readonly readBy: string;
  /** The platform privilege a caller must hold to write it (or, for an entity's existence, create or delete it). */
  readonly guard: string;
  /** The mark a change of it sets, when a reader caches it (credentials and secrets are read afresh each time). */
  readonly mark?: SecurityMarkName;
}

/** An entity type some of whose state is a security input. */
export interface SecurityEntity {
  /** Its key aspect: writing it creates the entity, deleting it deletes the entity. */
  readonly keyAspect: string;
  /**
   * Creating and deleting the entity. Deleting one always needs the guard (it takes every input along); creating one
   * needs it when its existence itself is read (`existenceRead`), or the entity type is an input as a whole.
   */
  readonly existence: SecurityInput & { readonly existenceRead: boolean };
  /** The aspects that are inputs, by name; `'*'`: every aspect of the type, whatever it is (policies, tokens…). */
  readonly aspects: Readonly<Record<string, SecurityInput>> | '*';
}

const { MANAGE_USERS_AND_GROUPS, MANAGE_USER_CREDENTIALS, MANAGE_POLICIES, MANAGE_ACCESS_TOKENS, MANAGE_SECRETS } =
  PlatformPrivilege;

/**
 * Everything of the catalog that authentication and authorization read — the single list their readers read through
 * (the gateway's security view, logging in, the token routes) and the writer's marks and the gateway's write checks
 * derive from: whoever may change one of these may change who may do what, so each is written only by a caller holding
 * its guard, with authentication on or off. A reader that reads anything else fails the test that records their reads
 * (apps/gateway/src/auth/security-view.spec.ts).
 *
 * Not here: the facts policies select resources by (owners, tags, domains…). They are metadata like any other,
 * guarded by the policies themselves with authentication on; with it off, no check that still applies reads them.
 */
export const SECURITY_INPUTS: Readonly<Record<string, SecurityEntity>> = {
  corpuser: {
    keyAspect: 'corpUserKey',
    existence: {
      readBy: 'authentication: a token acts only for a user that exists, so a user deleted stays locked out',
      guard: MANAGE_USERS_AND_GROUPS,
      mark: SecurityMark.principals,
      existenceRead: true,
    },
    aspects: {
      status: {
        readBy: 'authentication: the tokens of a soft-deleted user are refused, and so are its logins',
        guard: MANAGE_USERS_AND_GROUPS,
        mark: SecurityMark.principals,
      },
      corpUserStatus: {
        readBy: 'authentication: the tokens of a suspended user are refused, and so are its logins',
        guard: MANAGE_USERS_AND_GROUPS,
        mark: SecurityMark.principals,
      },
      corpUserCredentials: {
        readBy: 'logging in: the hash a password is checked against',
        guard: MANAGE_USER_CREDENTIALS,
      },
      groupMembership: {
        readBy: "policies: the groups a user belongs to, and through them the groups' roles",
        guard: MANAGE_USERS_AND_GROUPS,
        mark: SecurityMark.principals,
      },
      nativeGroupMembership: {
        readBy: 'policies: the native groups a user belongs to',
        guard: MANAGE_USERS_AND_GROUPS,
        mark: SecurityMark.principals,
      },
      roleMembership: {
        readBy: "policies: a user's roles (Admin, Editor, Reader)",
        guard: MANAGE_POLICIES,
        mark: SecurityMark.principals,
      },
    },
  },
  corpGroup: {
    keyAspect: 'corpGroupKey',
    existence: {
      readBy: "policies: deleting a group takes its roles from its members (a group's existence alone is not read)",
      guard: MANAGE_USERS_AND_GROUPS,
      existenceRead: false,
    },
    aspects: {
      roleMembership: {
        readBy: "policies: a group's roles pass to its members",
        guard: MANAGE_POLICIES,
        mark: SecurityMark.principals,
      },
      corpGroupInfo: {
        // Not read by Strata's policy engine, which takes membership from the user's side; guarded all the same, so
        // that who belongs to a group is changed by those who manage groups, wherever it is written.
        readBy:
          "group membership as recorded on the group: its members, admins and parent groups (DataHub's older form)",
        guard: MANAGE_USERS_AND_GROUPS,
      },
    },
  },
  dataHubRole: {
    keyAspect: 'dataHubRoleKey',
    existence: {
      readBy: 'policies: roles name who holds what',
      guard: MANAGE_POLICIES,
      mark: SecurityMark.principals,
      existenceRead: true,
    },
    aspects: '*',
  },
  dataHubPolicy: {
    keyAspect: 'dataHubPolicyKey',
    existence: {
      readBy: 'authorization: the policies themselves',
      guard: MANAGE_POLICIES,
      mark: SecurityMark.policies,
      existenceRead: true,
    },
    aspects: '*',
  },
  dataHubAccessToken: {
    keyAspect: 'dataHubAccessTokenKey',
    existence: {
      readBy: 'authentication: a personal token works while its entity exists (revoking deletes it)',
      guard: MANAGE_ACCESS_TOKENS,
      mark: SecurityMark.principals,
      existenceRead: true,
    },
    aspects: '*',
  },
  dataHubSecret: {
    keyAspect: 'dataHubSecretKey',
    existence: {
      readBy: 'ingestion: the credentials recipes refer to by name',
      guard: MANAGE_SECRETS,
      existenceRead: true,
    },
    aspects: '*',
  },
};

/** The security input an aspect of an entity type is, if any (its key aspect: the entity's existence). */
export function securityInputOf(entityType: string, aspect: string): SecurityInput | undefined {
  const entity = SECURITY_INPUTS[entityType];
  if (entity === undefined) return undefined;
  if (aspect === entity.keyAspect || entity.aspects === '*') return entity.existence;
  return entity.aspects[aspect];
}

/** A write as the checks see it: its entity type, aspect, change type, and whether it is of the key aspect. */
export interface SecurityWrite {
  readonly entityType: string;
  readonly aspect: string;
  readonly changeType: string;
}

/**
 * The privilege a write needs because it changes a security input, if it does: a write of an input aspect; the
 * deletion of an entity of a type with inputs (its key aspect deleted); the explicit creation of one whose existence
 * is read. Creating such an entity by writing another of its aspects is guarded by {@link creationGuardOf}, which
 * only the writer can apply (only it knows, at that moment, whether the entity exists).
 */
export function writeGuardOf(write: SecurityWrite): string | undefined {
  const entity = SECURITY_INPUTS[write.entityType];
  if (entity === undefined) return undefined;
  if (write.aspect === entity.keyAspect || write.changeType === 'CREATE_ENTITY') {
    return write.changeType === 'DELETE' || entity.existence.existenceRead ? entity.existence.guard : undefined;
  }
  return securityInputOf(write.entityType, write.aspect)?.guard;
}

/** The privilege creating an entity of this type needs, when its existence is a security input. */
export function creationGuardOf(entityType: string): string | undefined {
  const entity = SECURITY_INPUTS[entityType];
  return entity?.existence.existenceRead === true ? entity.existence.guard : undefined;
}

/**
 * The marks a change sets: of an aspect's input, or — `aspect` undefined: the entity deleted — of every input of its
 * type. Derived from {@link SECURITY_INPUTS}, so that what is read and what is marked cannot drift apart.
 */
export function securityMarksOf(urn: string, aspect: string | undefined): SecurityMarkName[] {
  const entityType = /^urn:li:([^:]+):/.exec(urn)?.[1];
  const entity = entityType === undefined ? undefined : SECURITY_INPUTS[entityType];
  if (entity === undefined || entityType === undefined) return [];
  const inputs =
    aspect !== undefined
      ? [securityInputOf(entityType, aspect)]
      : [entity.existence, ...(entity.aspects === '*' ? [] : Object.values(entity.aspects))];
  return [...new Set(inputs.flatMap((input) => (input?.mark === undefined ? [] : [input.mark])))];
}

/**
 * What the gateway reads to know a principal: a user's existence, status, groups and roles, then each of its groups'
 * roles — inputs all (the test recording the readers' reads holds them to it).
 */
export const PRINCIPAL_READS = {
  user: ['corpUserKey', 'status', 'corpUserStatus', 'groupMembership', 'nativeGroupMembership', 'roleMembership'],
  group: ['roleMembership'],
} as const;

/**
 * The aspects whose latest values are listed whole across entities by their readers: every policy, every stored
 * token. The primary store indexes these for listing (it is told so by its composition root).
 */
export const LISTED_SECURITY_ASPECTS: readonly string[] = ['dataHubPolicyInfo', 'dataHubAccessTokenInfo'];
