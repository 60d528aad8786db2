/**
 * The curation editors of entity pages: each shows the current values and, for a caller who may edit them (the
 * entity's `privileges`), the controls that change them through DataHub's GraphQL mutations, calling `onChanged` after
 * a success so that the page reads the entity again.
 */
import './curation.css';

export { DescriptionEditor, FieldDescriptionEditor } from './description-editor';
export { TagsEditor, TermsEditor, type Label } from './labels-editor';
export { OwnersEditor, type OwnerEntry } from './owners-editor';
export { LinksEditor, type LinkEntry } from './links-editor';
export { DomainEditor } from './domain-editor';
export { DeprecationEditor, type DeprecationState } from './deprecation-editor';
export { SoftDeleteControl } from './soft-delete-control';
