import type { Policy, PolicyInfo } from './policy-engine';
import { PLATFORM_PRIVILEGES } from './privileges';

/** The root user: holds every privilege through the default policies (it has no bypass of its own). */
export const ROOT_USER = 'urn:li:corpuser:datahub';

const ADMIN = 'urn:li:dataHubRole:Admin';
const EDITOR = 'urn:li:dataHubRole:Editor';
const READER = 'urn:li:dataHubRole:Reader';

/** What reading metadata takes, in DataHub's default policies. */
const VIEW = [
  'VIEW_ENTITY_PAGE',
  'SEARCH_PRIVILEGE',
  'GET_COUNTS_PRIVILEGE',
  'GET_TIMESERIES_ASPECT_PRIVILEGE',
  'GET_ENTITY_PRIVILEGE',
  'GET_TIMELINE_PRIVILEGE',
  'ES_EXPLAIN_QUERY_PRIVILEGE',
];
const VIEW_SENSITIVE = ['VIEW_DATASET_USAGE', 'VIEW_DATASET_PROFILE', 'VIEW_DATASET_OPERATIONS'];
/** The metadata privileges of the root user's policy. */
const ROOT_METADATA = [
  'EDIT_ENTITY',
  'VIEW_ENTITY_PAGE',
  ...VIEW_SENSITIVE,
  'EDIT_LINEAGE',
  'EDIT_ENTITY_ASSERTIONS',
  'SEARCH_PRIVILEGE',
  'GET_COUNTS_PRIVILEGE',
  'GET_TIMESERIES_ASPECT_PRIVILEGE',
  'GET_ENTITY_PRIVILEGE',
  'GET_TIMELINE_PRIVILEGE',
  'PRODUCE_PLATFORM_EVENT_PRIVILEGE',
  'MANAGE_DATA_PRODUCTS',
  'MANAGE_GLOBAL_OWNERSHIP_TYPES',
  'DELETE_ENTITY',
  'ES_EXPLAIN_QUERY_PRIVILEGE',
  'EXECUTE_ENTITY',
  'MANAGE_ASSET_SUMMARY',
];
/** The finer edit privileges DataHub's admin, editor and owner policies add. */
const FINE_EDITS = [
  'EDIT_ENTITY_TAGS',
  'EDIT_ENTITY_GLOSSARY_TERMS',
  'EDIT_ENTITY_OWNERS',
  'EDIT_ENTITY_DOCS',
  'EDIT_ENTITY_DOC_LINKS',
  'EDIT_ENTITY_STATUS',
  'EDIT_ENTITY_DATA_PRODUCTS',
  'EDIT_ENTITY_INCIDENTS',
  'EDIT_ENTITY_QUERIES',
  'EDIT_ENTITY_PROPERTIES',
  'EDIT_DOMAINS_PRIVILEGE',
  'EDIT_DEPRECATION_PRIVILEGE',
  'EDIT_DATASET_COL_TAGS',
  'EDIT_DATASET_COL_GLOSSARY_TERMS',
  'EDIT_DATASET_COL_DESCRIPTION',
  'EDIT_DATASET_COL_BUSINESS_ATTRIBUTE_PRIVILEGE',
  'EDIT_TAG_COLOR',
  'EDIT_GROUP_MEMBERS',
  'EDIT_USER_PROFILE',
  'EDIT_CONTACT_INFO',
];

/** What DataHub's editor policy leaves to admins and owners. */
const EDITOR_WITHHELD: ReadonlySet<string> = new Set([
  'EDIT_ENTITY_OWNERS',
  'EDIT_GROUP_MEMBERS',
  'EDIT_USER_PROFILE',
  'EDIT_CONTACT_INFO',
]);

/** A default policy as it is stored: a whole `dataHubPolicyInfo` value. */
export interface DefaultPolicy extends Policy {
  readonly info: PolicyInfo & {
    readonly displayName: string;
    readonly description: string;
    readonly editable: boolean;
  };
}

const policy = (
  id: string,
  displayName: string,
  description: string,
  info: Omit<PolicyInfo, 'state'>,
): DefaultPolicy => ({
  urn: `urn:li:dataHubPolicy:${id}`,
  // Root's policies cannot be edited; the others are the operator's to change.
  info: { displayName, description, ...info, state: 'ACTIVE', editable: !id.match(/^[01]$/) },
});

/**
 * The policies a new catalog starts with, DataHub's defaults under their URNs: the root user holds every platform and
 * metadata privilege; every user may read metadata (entities, search, usage and profiles) and make personal access
 * tokens; the Admin, Editor and Reader roles and the owners of an entity get DataHub's grants. Beyond DataHub, root
 * and admins also hold the operations privileges DataHub keeps off its catalogue (index sizes, truncation, task
 * status, restore), which Strata's endpoints check.
 */
export const DEFAULT_POLICIES: readonly DefaultPolicy[] = [
  policy('0', 'Root User - All Platform Privileges', 'The root user holds every platform privilege.', {
    type: 'PLATFORM',
    privileges: PLATFORM_PRIVILEGES,
    actors: { users: [ROOT_USER] },
  }),
  policy('1', 'Root User - Edit and View All Resources', 'The root user holds every metadata privilege.', {
    type: 'METADATA',
    privileges: ROOT_METADATA,
    actors: { users: [ROOT_USER] },
  }),
  policy('7', 'All Users - Base Platform Privileges', 'Every user may make personal access tokens.', {
    type: 'PLATFORM',
    privileges: ['VIEW_ANALYTICS', 'GENERATE_PERSONAL_ACCESS_TOKENS'],
    actors: { allUsers: true },
  }),
  policy('view-entity-page-all', 'All Users - View Entity Page', 'Every user may read and search metadata.', {
    type: 'METADATA',
    privileges: VIEW,
    actors: { allUsers: true },
  }),
  policy(
    'view-dataset-sensitive',
    'All Users - View Dataset Sensitive Information',
    'Every user may read usage, profiles and operations of datasets.',
    { type: 'METADATA', privileges: VIEW_SENSITIVE, actors: { allUsers: true } },
  ),
  policy('admin-platform-policy', 'Admins - Platform Policy', 'The Admin role holds every platform privilege.', {
    type: 'PLATFORM',
    privileges: PLATFORM_PRIVILEGES,
    actors: { roles: [ADMIN] },
  }),
  policy(
    'admin-metadata-policy',
    'Admins - Metadata Policy',
    'The Admin role may read, edit and delete all metadata.',
    {
      type: 'METADATA',
      privileges: [...ROOT_METADATA.filter((name) => name !== 'MANAGE_GLOBAL_OWNERSHIP_TYPES'), ...FINE_EDITS],
      actors: { roles: [ADMIN] },
    },
  ),
  policy('editor-metadata-policy', 'Editors - Metadata Policy', 'The Editor role may read and annotate all metadata.', {
    type: 'METADATA',
    privileges: [
      ...VIEW,
      ...VIEW_SENSITIVE,
      'EDIT_LINEAGE',
      ...FINE_EDITS.filter((name) => !EDITOR_WITHHELD.has(name)),
    ],
    actors: { roles: [EDITOR] },
  }),
  policy('reader-metadata-policy', 'Readers - Metadata Policy', 'The Reader role may read all metadata.', {
    type: 'METADATA',
    privileges: [...VIEW, ...VIEW_SENSITIVE],
    actors: { roles: [READER] },
  }),
  policy('asset-owners-metadata-policy', 'Asset Owners - Metadata Policy', 'The owners of an entity may edit it.', {
    type: 'METADATA',
    privileges: [
      'EDIT_ENTITY',
      'VIEW_ENTITY_PAGE',
      ...VIEW_SENSITIVE,
      'EDIT_LINEAGE',
      'EDIT_ENTITY_ASSERTIONS',
      'GET_ENTITY_PRIVILEGE',
      'GET_TIMESERIES_ASPECT_PRIVILEGE',
      ...FINE_EDITS,
    ],
    actors: { resourceOwners: true },
  }),
];
