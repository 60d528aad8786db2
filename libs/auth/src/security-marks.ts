/**
 * The marks the metadata-writer sets in the primary store, in the same commit, whenever what authentication and
 * authorization read changes — so that a gateway, comparing them with the ones it saw, knows with one small read per
 * request whether what it cached still holds (docs/adr/0020).
 */
export const SecurityMark = {
  /** A policy changed (`dataHubPolicy`, any aspect, or its deletion). */
  policies: 'security.policies',
  /**
   * Who someone is changed: a user or group came or went, was soft-deleted or suspended, changed groups or roles; an
   * access token was made or revoked; a role changed.
   */
  principals: 'security.principals',
} as const;

export type SecurityMarkName = (typeof SecurityMark)[keyof typeof SecurityMark];

/** The aspects of users and groups that authentication or policies read (besides their keys). */
const PRINCIPAL_ASPECTS: Readonly<Record<string, ReadonlySet<string>>> = {
  corpuser: new Set([
    'corpUserKey',
    'status',
    'corpUserStatus',
    'groupMembership',
    'nativeGroupMembership',
    'roleMembership',
  ]),
  corpGroup: new Set(['corpGroupKey', 'status', 'roleMembership']),
};

/** Entity types every aspect of which counts. */
const WHOLE_PRINCIPALS = new Set(['dataHubAccessToken', 'dataHubRole']);

/**
 * The mark a change of `aspect` (undefined: the whole entity, deleted) of `urn` must set, if any.
 */
export function securityMarkOf(urn: string, aspect: string | undefined): SecurityMarkName | undefined {
  const entityType = /^urn:li:([^:]+):/.exec(urn)?.[1];
  if (entityType === undefined) return undefined;
  if (entityType === 'dataHubPolicy') return SecurityMark.policies;
  if (WHOLE_PRINCIPALS.has(entityType)) return SecurityMark.principals;
  const aspects = PRINCIPAL_ASPECTS[entityType];
  if (aspects === undefined) return undefined;
  return aspect === undefined || aspects.has(aspect) ? SecurityMark.principals : undefined;
}
