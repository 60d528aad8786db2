/**
 * The GraphQL documents of the curation editors: DataHub's mutations as Strata serves them (each answers `true`, or an
 * error with the server's message), and the autocomplete reads of the pickers.
 */

export const UPDATE_DESCRIPTION = `mutation consoleUpdateDescription($input: DescriptionUpdateInput!) {
  updateDescription(input: $input)
}`;

export const ADD_TAG = `mutation consoleAddTag($input: TagAssociationInput!) { addTag(input: $input) }`;
export const REMOVE_TAG = `mutation consoleRemoveTag($input: TagAssociationInput!) { removeTag(input: $input) }`;
export const ADD_TERM = `mutation consoleAddTerm($input: TermAssociationInput!) { addTerm(input: $input) }`;
export const REMOVE_TERM = `mutation consoleRemoveTerm($input: TermAssociationInput!) { removeTerm(input: $input) }`;
export const ADD_OWNER = `mutation consoleAddOwner($input: AddOwnerInput!) { addOwner(input: $input) }`;
export const REMOVE_OWNER = `mutation consoleRemoveOwner($input: RemoveOwnerInput!) { removeOwner(input: $input) }`;
export const ADD_LINK = `mutation consoleAddLink($input: AddLinkInput!) { addLink(input: $input) }`;
export const REMOVE_LINK = `mutation consoleRemoveLink($input: RemoveLinkInput!) { removeLink(input: $input) }`;
export const SET_DOMAIN = `mutation consoleSetDomain($entityUrn: String!, $domainUrn: String!) {
  setDomain(entityUrn: $entityUrn, domainUrn: $domainUrn)
}`;
export const UNSET_DOMAIN = `mutation consoleUnsetDomain($entityUrn: String!) { unsetDomain(entityUrn: $entityUrn) }`;
export const UPDATE_DEPRECATION = `mutation consoleUpdateDeprecation($input: UpdateDeprecationInput!) {
  updateDeprecation(input: $input)
}`;
export const SOFT_DELETE = `mutation consoleSoftDelete($input: BatchUpdateSoftDeletedInput!) {
  batchUpdateSoftDeleted(input: $input)
}`;

/** Whether an entity exists (a tag about to be made). */
export const ENTITY_EXISTS = `query consoleEntityExists($urn: String!) { entityExists(urn: $urn) }`;

/** The names the pickers show, whatever the entity type. */
const NAMES = `urn type
  ... on Tag { name properties { name } }
  ... on GlossaryTerm { name hierarchicalName properties { name } }
  ... on Domain { properties { name } }
  ... on CorpUser { username properties { displayName fullName } editableProperties { displayName } }
  ... on CorpGroup { name properties { displayName } }`;

export const AUTOCOMPLETE_ONE = `query consoleCurationAutocomplete($input: AutoCompleteInput!) {
  autoComplete(input: $input) { entities { ${NAMES} } }
}`;

export const AUTOCOMPLETE_MANY = `query consoleCurationAutocompleteMany($input: AutoCompleteMultipleInput!) {
  autoCompleteForMultiple(input: $input) { suggestions { entities { ${NAMES} } } }
}`;

/** An entity as the autocomplete answers it. */
export interface NamedEntity {
  readonly urn: string;
  readonly type: string;
  readonly name?: string | null;
  readonly hierarchicalName?: string | null;
  readonly username?: string | null;
  readonly properties?: {
    readonly name?: string | null;
    readonly displayName?: string | null;
    readonly fullName?: string | null;
  } | null;
  readonly editableProperties?: { readonly displayName?: string | null } | null;
}

/** The name to show for an entity the autocomplete answered. */
export function nameOfEntity(entity: NamedEntity): string {
  return (
    entity.editableProperties?.displayName ??
    entity.properties?.displayName ??
    entity.properties?.fullName ??
    entity.properties?.name ??
    entity.name ??
    entity.username ??
    entity.urn
  );
}
