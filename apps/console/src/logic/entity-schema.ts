/**
 * A dataset's schema fields as the schema tab shows them: each field of `schemaMetadata` (what ingestion wrote) with
 * what people added in `editableSchemaMetadata` (descriptions, tags and terms, edited in the console), matched by
 * field path — exactly, else by readable path (an edit made against the v1 path of a v2 field). An edited description
 * replaces the ingested one; tags and terms of both are shown, the edited ones being the ones an editor changes.
 * Pure (unit-tested in entity-schema.spec.ts).
 */
import { labelOf, type EntityLabel } from './entity-summary';
import { simplifyFieldPath } from './schema-fields';

/** A field of `schemaMetadata` as GraphQL answers it. */
export interface GqlSchemaField {
  readonly fieldPath: string;
  readonly type?: string | null;
  readonly nativeDataType?: string | null;
  readonly nullable?: boolean | null;
  readonly description?: string | null;
  readonly isPartOfKey?: boolean | null;
  readonly isPartitioningKey?: boolean | null;
  readonly label?: string | null;
  readonly globalTags?: GqlTags | null;
  readonly glossaryTerms?: GqlTerms | null;
}

export interface GqlTags {
  readonly tags?: readonly { readonly tag?: unknown }[] | null;
}

export interface GqlTerms {
  readonly terms?: readonly { readonly term?: unknown }[] | null;
}

/** An entry of `editableSchemaMetadata.editableSchemaFieldInfo`. */
export interface GqlEditableField {
  readonly fieldPath: string;
  readonly description?: string | null;
  readonly globalTags?: GqlTags | null;
  readonly glossaryTerms?: GqlTerms | null;
}

/** A field as the schema tab shows it. */
export interface SchemaFieldView {
  readonly fieldPath: string;
  readonly type?: string;
  readonly nativeDataType?: string;
  readonly nullable: boolean;
  readonly isPartOfKey: boolean;
  readonly isPartitioningKey: boolean;
  /** What is shown: the edited description, else the ingested one. */
  readonly description?: string;
  readonly edited: boolean;
  /** The tags and terms edited in the console (an editor changes these). */
  readonly tags: readonly EntityLabel[];
  readonly terms: readonly EntityLabel[];
  /** The tags and terms ingestion wrote that are not among the edited ones (shown, not changed here). */
  readonly ingestedTags: readonly EntityLabel[];
  readonly ingestedTerms: readonly EntityLabel[];
}

function tagsOf(tags: GqlTags | null | undefined): EntityLabel[] {
  return (tags?.tags ?? []).flatMap((item) => {
    const label = labelOf(item.tag);
    return label === undefined ? [] : [label];
  });
}

function termsOf(terms: GqlTerms | null | undefined): EntityLabel[] {
  return (terms?.terms ?? []).flatMap((item) => {
    const label = labelOf(item.term);
    return label === undefined ? [] : [label];
  });
}

function without(labels: readonly EntityLabel[], taken: readonly EntityLabel[]): EntityLabel[] {
  const urns = new Set(taken.map((label) => label.urn));
  return labels.filter((label) => !urns.has(label.urn));
}

/** The fields of a schema with their edits. `primaryKeys` (field paths) also mark key fields. */
export function schemaFieldViews(
  fields: readonly GqlSchemaField[],
  edits: readonly GqlEditableField[] = [],
  primaryKeys: readonly string[] = [],
): SchemaFieldView[] {
  const exact = new Map(edits.map((edit) => [edit.fieldPath, edit]));
  const bySimple = new Map<string, GqlEditableField>();
  for (const edit of edits) {
    const simple = simplifyFieldPath(edit.fieldPath);
    if (!bySimple.has(simple)) bySimple.set(simple, edit);
  }
  const keys = new Set(primaryKeys);
  return fields.map((field) => {
    const edit = exact.get(field.fieldPath) ?? bySimple.get(simplifyFieldPath(field.fieldPath));
    const editedDescription = edit?.description ?? undefined;
    const description =
      editedDescription !== undefined && editedDescription !== '' ? editedDescription : field.description;
    const tags = tagsOf(edit?.globalTags);
    const terms = termsOf(edit?.glossaryTerms);
    return {
      fieldPath: field.fieldPath,
      ...(field.type === null || field.type === undefined ? {} : { type: field.type }),
      ...(field.nativeDataType === null || field.nativeDataType === undefined
        ? {}
        : { nativeDataType: field.nativeDataType }),
      nullable: field.nullable === true,
      isPartOfKey:
        field.isPartOfKey === true || keys.has(field.fieldPath) || keys.has(simplifyFieldPath(field.fieldPath)),
      isPartitioningKey: field.isPartitioningKey === true,
      ...(description === null || description === undefined || description === '' ? {} : { description }),
      edited: editedDescription !== undefined && editedDescription !== '',
      tags,
      terms,
      ingestedTags: without(tagsOf(field.globalTags), tags),
      ingestedTerms: without(termsOf(field.glossaryTerms), terms),
    };
  });
}

/** The texts a schema filter looks in, besides the path: type, native type, description, tags and terms. */
export function searchableTextsOf(field: SchemaFieldView): string[] {
  return [
    field.type ?? '',
    field.nativeDataType ?? '',
    field.description ?? '',
    ...[...field.tags, ...field.ingestedTags, ...field.terms, ...field.ingestedTerms].map(
      (label) => `${label.name ?? ''} ${label.urn}`,
    ),
  ];
}
