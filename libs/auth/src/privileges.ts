/**
 * DataHub's privileges, by name, and what each kind of API call requires. A policy grants privileges by name; a check
 * asks for one of several sets of them (an OR of ANDs), as DataHub's API privilege map does.
 */

/** The platform privileges (granted by PLATFORM policies, on no resource) that Strata's endpoints check. */
export const PlatformPrivilege = {
  MANAGE_POLICIES: 'MANAGE_POLICIES',
  MANAGE_USERS_AND_GROUPS: 'MANAGE_USERS_AND_GROUPS',
  MANAGE_USER_CREDENTIALS: 'MANAGE_USER_CREDENTIALS',
  MANAGE_ACCESS_TOKENS: 'MANAGE_ACCESS_TOKENS',
  GENERATE_PERSONAL_ACCESS_TOKENS: 'GENERATE_PERSONAL_ACCESS_TOKENS',
  MANAGE_SECRETS: 'MANAGE_SECRETS',
  MANAGE_INGESTION: 'MANAGE_INGESTION',
  MANAGE_TESTS: 'MANAGE_TESTS',
  VIEW_ANALYTICS: 'VIEW_ANALYTICS',
  GET_ANALYTICS_PRIVILEGE: 'GET_ANALYTICS_PRIVILEGE',
  MANAGE_SYSTEM_OPERATIONS: 'MANAGE_SYSTEM_OPERATIONS',
  GET_TIMESERIES_INDEX_SIZES_PRIVILEGE: 'GET_TIMESERIES_INDEX_SIZES_PRIVILEGE',
  TRUNCATE_TIMESERIES_INDEX_PRIVILEGE: 'TRUNCATE_TIMESERIES_INDEX_PRIVILEGE',
  GET_ES_TASK_STATUS_PRIVILEGE: 'GET_ES_TASK_STATUS_PRIVILEGE',
  RESTORE_INDICES_PRIVILEGE: 'RESTORE_INDICES_PRIVILEGE',
} as const;

/** The resource privileges (granted by METADATA policies, on the resources they select) that Strata checks. */
export const ResourcePrivilege = {
  VIEW_ENTITY_PAGE: 'VIEW_ENTITY_PAGE',
  GET_ENTITY_PRIVILEGE: 'GET_ENTITY_PRIVILEGE',
  SEARCH_PRIVILEGE: 'SEARCH_PRIVILEGE',
  CREATE_ENTITY: 'CREATE_ENTITY',
  EXISTS_ENTITY: 'EXISTS_ENTITY',
  EDIT_ENTITY: 'EDIT_ENTITY',
  DELETE_ENTITY: 'DELETE_ENTITY',
  EDIT_LINEAGE: 'EDIT_LINEAGE',
  EXECUTE_ENTITY: 'EXECUTE_ENTITY',
  GET_TIMESERIES_ASPECT_PRIVILEGE: 'GET_TIMESERIES_ASPECT_PRIVILEGE',
  GET_COUNTS_PRIVILEGE: 'GET_COUNTS_PRIVILEGE',
} as const;

/**
 * Every platform privilege DataHub defines (its catalogue order), and the REST-only ones it keeps off that list: what a
 * PLATFORM policy may grant.
 */
export const PLATFORM_PRIVILEGES: readonly string[] = [
  'MANAGE_POLICIES',
  'MANAGE_USERS_AND_GROUPS',
  'CREATE_USERS_AND_GROUPS',
  'UPDATE_USERS_AND_GROUPS',
  'CREATE_USERS',
  'UPDATE_USERS',
  'CREATE_GROUPS',
  'UPDATE_GROUPS',
  'VIEW_ANALYTICS',
  'GET_ANALYTICS_PRIVILEGE',
  'MANAGE_DOMAINS',
  'MANAGE_GLOBAL_ANNOUNCEMENTS',
  'MANAGE_INGESTION',
  'MANAGE_SECRETS',
  'GENERATE_PERSONAL_ACCESS_TOKENS',
  'MANAGE_ACCESS_TOKENS',
  'MANAGE_SERVICE_ACCOUNTS',
  'VIEW_TESTS',
  'MANAGE_TESTS',
  'MANAGE_GLOSSARIES',
  'MANAGE_USER_CREDENTIALS',
  'MANAGE_TAGS',
  'VIEW_MANAGE_TAGS',
  'CREATE_TAGS',
  'CREATE_DOMAINS',
  'CREATE_LOGICAL_MODELS',
  'CREATE_GLOBAL_ANNOUNCEMENTS',
  'MANAGE_GLOBAL_VIEWS',
  'MANAGE_GLOBAL_OWNERSHIP_TYPES',
  'MANAGE_GLOBAL_SETTINGS',
  'CREATE_BUSINESS_ATTRIBUTE',
  'MANAGE_BUSINESS_ATTRIBUTE',
  'MANAGE_CONNECTIONS',
  'MANAGE_STRUCTURED_PROPERTIES',
  'MANAGE_DOCUMENTS',
  'VIEW_STRUCTURED_PROPERTIES_PAGE',
  'MANAGE_DOCUMENTATION_FORMS',
  'MANAGE_FEATURES',
  'MANAGE_SYSTEM_OPERATIONS',
  'GET_PLATFORM_EVENTS',
  'GET_METADATA_CHANGE_LOG_EVENTS',
  'MANAGE_HOME_PAGE_TEMPLATES',
  'GET_TOPIC_EVENTS',
  // REST-only: DataHub keeps them off its catalogue so that its UI does not offer them.
  'RESTORE_INDICES_PRIVILEGE',
  'GET_TIMESERIES_INDEX_SIZES_PRIVILEGE',
  'TRUNCATE_TIMESERIES_INDEX_PRIVILEGE',
  'GET_ES_TASK_STATUS_PRIVILEGE',
  'SET_WRITEABLE_PRIVILEGE',
  'APPLY_RETENTION_PRIVILEGE',
  'PRODUCE_PLATFORM_EVENT_PRIVILEGE',
];

/** DataHub's API groups and operations, which name what an endpoint does. */
export type ApiGroup = 'ENTITY' | 'LINEAGE' | 'RELATIONSHIP' | 'ANALYTICS' | 'TIMESERIES' | 'COUNTS';
export type ApiOperation = 'CREATE' | 'READ' | 'UPDATE' | 'DELETE' | 'EXISTS' | 'EXECUTE';

/** Privileges any one set of which allows a call: an OR of ANDs. Empty: nothing allows it. */
export type PrivilegeRequirement = readonly (readonly string[])[];

const anyOf = (...privileges: string[]): PrivilegeRequirement => privileges.map((privilege) => [privilege]);
const DENY: PrivilegeRequirement = [];

/** DataHub's API privilege map: what each (group, operation) requires, for any entity type. */
const API_PRIVILEGES: Readonly<Record<ApiGroup, Partial<Record<ApiOperation, PrivilegeRequirement>>>> = {
  ENTITY: {
    CREATE: anyOf('CREATE_ENTITY', 'EDIT_ENTITY'),
    READ: anyOf('VIEW_ENTITY_PAGE', 'GET_ENTITY_PRIVILEGE', 'EDIT_ENTITY', 'DELETE_ENTITY'),
    UPDATE: anyOf('EDIT_ENTITY'),
    DELETE: anyOf('DELETE_ENTITY'),
    EXISTS: anyOf('EXISTS_ENTITY', 'EDIT_ENTITY', 'DELETE_ENTITY', 'VIEW_ENTITY_PAGE', 'SEARCH_PRIVILEGE'),
    EXECUTE: anyOf('EXECUTE_ENTITY'),
  },
  LINEAGE: {
    CREATE: anyOf('EDIT_ENTITY', 'EDIT_LINEAGE'),
    READ: anyOf('VIEW_ENTITY_PAGE', 'GET_ENTITY_PRIVILEGE', 'EDIT_ENTITY', 'EDIT_LINEAGE', 'DELETE_ENTITY'),
    UPDATE: anyOf('EDIT_ENTITY', 'EDIT_LINEAGE'),
    DELETE: anyOf('EDIT_ENTITY', 'DELETE_ENTITY', 'EDIT_LINEAGE'),
    EXISTS: anyOf(
      'EXISTS_ENTITY',
      'VIEW_ENTITY_PAGE',
      'SEARCH_PRIVILEGE',
      'EDIT_ENTITY',
      'EDIT_LINEAGE',
      'DELETE_ENTITY',
      'GET_ENTITY_PRIVILEGE',
    ),
  },
  RELATIONSHIP: {
    CREATE: anyOf('EDIT_ENTITY'),
    READ: anyOf('VIEW_ENTITY_PAGE', 'GET_ENTITY_PRIVILEGE', 'EDIT_ENTITY'),
    UPDATE: anyOf('EDIT_ENTITY'),
    DELETE: anyOf('EDIT_ENTITY', 'DELETE_ENTITY'),
    EXISTS: anyOf(
      'EXISTS_ENTITY',
      'VIEW_ENTITY_PAGE',
      'SEARCH_PRIVILEGE',
      'EDIT_ENTITY',
      'DELETE_ENTITY',
      'GET_ENTITY_PRIVILEGE',
    ),
  },
  ANALYTICS: {
    CREATE: DENY,
    READ: anyOf('VIEW_ANALYTICS', 'GET_ANALYTICS_PRIVILEGE', 'MANAGE_SYSTEM_OPERATIONS'),
    UPDATE: DENY,
    DELETE: DENY,
    EXISTS: anyOf('VIEW_ANALYTICS', 'GET_ANALYTICS_PRIVILEGE', 'SEARCH_PRIVILEGE', 'MANAGE_SYSTEM_OPERATIONS'),
  },
  TIMESERIES: {
    CREATE: anyOf('EDIT_ENTITY'),
    READ: anyOf('GET_TIMESERIES_ASPECT_PRIVILEGE', 'EDIT_ENTITY', 'DELETE_ENTITY'),
    UPDATE: anyOf('EDIT_ENTITY'),
    DELETE: anyOf('DELETE_ENTITY'),
    EXISTS: anyOf(
      'EXISTS_ENTITY',
      'DELETE_ENTITY',
      'SEARCH_PRIVILEGE',
      'EDIT_ENTITY',
      'GET_TIMESERIES_ASPECT_PRIVILEGE',
      'VIEW_ENTITY_PAGE',
    ),
  },
  COUNTS: { CREATE: DENY, READ: anyOf('GET_COUNTS_PRIVILEGE'), UPDATE: DENY, DELETE: DENY, EXISTS: DENY },
};

/** Entity types whose ENTITY operations DataHub guards with platform privileges of their own. */
const ENTITY_OVERRIDES: Readonly<Record<string, Partial<Record<ApiOperation, PrivilegeRequirement>>>> = {
  dataHubPolicy: {
    CREATE: anyOf('MANAGE_POLICIES'),
    UPDATE: anyOf('MANAGE_POLICIES'),
    DELETE: anyOf('MANAGE_POLICIES'),
  },
  corpuser: {
    CREATE: anyOf('CREATE_USERS_AND_GROUPS', 'MANAGE_USERS_AND_GROUPS', 'CREATE_USERS', 'UPDATE_USERS'),
    UPDATE: anyOf('UPDATE_USERS_AND_GROUPS', 'MANAGE_USERS_AND_GROUPS', 'UPDATE_USERS'),
    DELETE: anyOf('MANAGE_USERS_AND_GROUPS', 'UPDATE_USERS'),
  },
  corpGroup: {
    CREATE: anyOf('CREATE_USERS_AND_GROUPS', 'MANAGE_USERS_AND_GROUPS', 'CREATE_GROUPS', 'UPDATE_GROUPS'),
    UPDATE: anyOf('UPDATE_USERS_AND_GROUPS', 'MANAGE_USERS_AND_GROUPS', 'UPDATE_GROUPS'),
    DELETE: anyOf('MANAGE_USERS_AND_GROUPS', 'UPDATE_GROUPS'),
  },
  dataHubIngestionSource: {
    CREATE: anyOf('MANAGE_INGESTION'),
    UPDATE: anyOf('EDIT_ENTITY', 'MANAGE_INGESTION'),
    DELETE: anyOf('DELETE_ENTITY', 'MANAGE_INGESTION'),
    EXECUTE: anyOf('EXECUTE_ENTITY', 'MANAGE_INGESTION'),
  },
  dataHubSecret: {
    CREATE: anyOf('MANAGE_SECRETS'),
    READ: anyOf('MANAGE_SECRETS'),
    UPDATE: anyOf('MANAGE_SECRETS'),
    DELETE: anyOf('MANAGE_SECRETS'),
  },
  dataHubAccessToken: {
    CREATE: anyOf('MANAGE_ACCESS_TOKENS', 'CREATE_ENTITY', 'EDIT_ENTITY'),
    READ: anyOf('MANAGE_ACCESS_TOKENS', 'VIEW_ENTITY_PAGE', 'GET_ENTITY_PRIVILEGE', 'EDIT_ENTITY', 'DELETE_ENTITY'),
    UPDATE: anyOf('MANAGE_ACCESS_TOKENS', 'EDIT_ENTITY'),
    DELETE: anyOf('MANAGE_ACCESS_TOKENS', 'DELETE_ENTITY'),
  },
  structuredProperty: {
    CREATE: anyOf('MANAGE_STRUCTURED_PROPERTIES'),
    READ: anyOf('VIEW_ENTITY_PAGE', 'MANAGE_STRUCTURED_PROPERTIES'),
    UPDATE: anyOf('EDIT_ENTITY', 'MANAGE_STRUCTURED_PROPERTIES'),
    DELETE: anyOf('DELETE_ENTITY', 'MANAGE_STRUCTURED_PROPERTIES'),
    EXECUTE: anyOf('EXECUTE_ENTITY', 'MANAGE_STRUCTURED_PROPERTIES'),
  },
};

/**
 * What a call of `operation` in `group` requires, on an entity of `entityType` when it concerns one (the ENTITY group
 * of some types is guarded by platform privileges of their own: policies, users and groups, secrets, tokens, …). A
 * pair DataHub does not map requires what nobody holds.
 */
export function apiPrivileges(group: ApiGroup, operation: ApiOperation, entityType?: string): PrivilegeRequirement {
  if (group === 'ENTITY' && entityType !== undefined) {
    const override = ENTITY_OVERRIDES[entityType]?.[operation];
    if (override !== undefined) return override;
  }
  return API_PRIVILEGES[group][operation] ?? DENY;
}

/** An operations endpoint's privilege: its own, or the catch-all of system operations. */
export function operationsPrivileges(privilege: string): PrivilegeRequirement {
  return anyOf(privilege, PlatformPrivilege.MANAGE_SYSTEM_OPERATIONS);
}

/** The operation DataHub checks a proposal's change type as: everything that writes a value is an UPDATE. */
export function operationOfChangeType(changeType: string): ApiOperation | undefined {
  switch (changeType) {
    case 'CREATE':
    case 'UPSERT':
    case 'UPDATE':
    case 'RESTATE':
    case 'PATCH':
      return 'UPDATE';
    case 'CREATE_ENTITY':
      return 'CREATE';
    case 'DELETE':
      return 'DELETE';
    default:
      return undefined;
  }
}
