import { BadRequestError, type JsonObject, type PatchOperation } from '@strata/model';
import type { GraphqlContext } from '../context';
import type { FieldResolver } from '../schema';
import {
  applyEdits,
  editRequirement,
  existingOf,
  fieldOf,
  objectsOf,
  pointerToken,
  requirePrivilege,
  resourceOf,
  resourcesOf,
  stampOf,
  urnOf,
  validateResources,
  type AspectEdit,
  type Resource,
  type ResourceRef,
} from './mutations-support';

/**
 * Tags and glossary terms, added to and removed from entities and their datasets' fields, as DataHub's label
 * mutations do: an entity's own go to its `globalTags` / `glossaryTerms`, a field's to `editableSchemaMetadata` (the
 * field's entry, made when missing). Written as PATCH proposals keyed by the label's URN, so that concurrent edits of
 * one entity's labels compose; a label already there is left as it is (its context and attribution kept).
 */

/** One kind of label: where it lives and what editing it takes. */
export interface LabelKind {
  /** The entity type of the label's URN. */
  readonly entityType: 'tag' | 'glossaryTerm';
  /** The aspect of an entity, and the field of a field's entry in `editableSchemaMetadata`. */
  readonly aspect: 'globalTags' | 'glossaryTerms';
  /** The array of associations, and each association's URN field. */
  readonly list: 'tags' | 'terms';
  readonly key: 'tag' | 'urn';
  /** The finer privileges of DataHub's check: on the entity's own labels, and on its fields'. */
  readonly entityPrivilege: string;
  readonly fieldPrivilege: string;
  /** Whether the list carries an audit stamp (terms), set to the caller and now when the list changes. */
  readonly stamped: boolean;
}

export const TAGS: LabelKind = {
  entityType: 'tag',
  aspect: 'globalTags',
  list: 'tags',
  key: 'tag',
  entityPrivilege: 'EDIT_ENTITY_TAGS',
  fieldPrivilege: 'EDIT_DATASET_COL_TAGS',
  stamped: false,
};

export const TERMS: LabelKind = {
  entityType: 'glossaryTerm',
  aspect: 'glossaryTerms',
  list: 'terms',
  key: 'urn',
  entityPrivilege: 'EDIT_ENTITY_GLOSSARY_TERMS',
  fieldPrivilege: 'EDIT_DATASET_COL_GLOSSARY_TERMS',
  stamped: true,
};

/**
 * The edit that adds (or removes) labels on a resource: PATCH operations for the labels not there yet (or there),
 * nothing when there are none; a change of a term list also stamps it.
 */
export function labelEdit(
  kind: LabelKind,
  resource: Resource,
  labels: readonly string[],
  adding: boolean,
  stamp: { readonly time: number; readonly actor: string },
): AspectEdit {
  const field = fieldOf(resource);
  const base = field === undefined ? '' : `/editableSchemaFieldInfo/${pointerToken(field)}/${kind.aspect}`;
  const listOf = (current: JsonObject | undefined): JsonObject[] => {
    if (field === undefined) return objectsOf(current?.[kind.list]);
    const entry = objectsOf(current?.['editableSchemaFieldInfo']).find((info) => info['fieldPath'] === field);
    const labelled = entry?.[kind.aspect];
    return typeof labelled === 'object' && labelled !== null && !Array.isArray(labelled)
      ? objectsOf((labelled as JsonObject)[kind.list])
      : [];
  };
  return {
    target: resource.target,
    aspect: field === undefined ? kind.aspect : 'editableSchemaMetadata',
    change: (current) => {
      const present = new Set(listOf(current).map((association) => association[kind.key]));
      const operations: PatchOperation[] = [];
      for (const label of new Set(labels)) {
        const path = `${base}/${kind.list}/${pointerToken(label)}`;
        if (adding && !present.has(label)) operations.push({ op: 'add', path, value: { [kind.key]: label } });
        if (!adding && present.has(label)) operations.push({ op: 'remove', path });
      }
      if (operations.length === 0) return undefined;
      if (kind.stamped) operations.push({ op: 'add', path: `${base}/auditStamp`, value: stamp });
      return { kind: 'patch', operations };
    },
  };
}

/** The privilege a label edit of these resources needs: on each entity, the field privilege for its fields. */
async function requireLabelPrivilege(context: GraphqlContext, kind: LabelKind, resources: readonly Resource[]) {
  const ofFields = resources.filter((resource) => fieldOf(resource) !== undefined);
  const ofEntities = resources.filter((resource) => fieldOf(resource) === undefined);
  await requirePrivilege(
    context,
    editRequirement(kind.entityPrivilege),
    ofEntities.map((resource) => resource.target),
  );
  await requirePrivilege(
    context,
    editRequirement(kind.fieldPrivilege),
    ofFields.map((resource) => resource.target),
  );
}

/** Labels to add: URNs of the kind's entity type that exist (DataHub's `validateLabel`), each a 400 otherwise. */
async function validateLabels(context: GraphqlContext, kind: LabelKind, labels: readonly string[], argument: string) {
  const parsed = labels.map((label, index) => urnOf(label, `${argument}[${index}]`));
  for (const { urn, entityType } of parsed) {
    if (entityType !== kind.entityType) {
      throw new BadRequestError(
        `Failed to validate label with urn ${urn}. Urn type does not match entity type ${kind.entityType}..`,
      );
    }
  }
  const existing = await existingOf(
    context,
    parsed.map(({ urn }) => urn),
  );
  for (const { urn } of parsed) {
    if (!existing.has(urn)) throw new BadRequestError(`Failed to validate label with urn ${urn}. Urn does not exist.`);
  }
  return parsed.map(({ urn }) => urn);
}

/**
 * Adds or removes labels of one kind on resources: the privilege on every resource, then (when adding) the labels,
 * then every resource, each checked before anything is written; then one write per resource.
 */
async function editLabels(
  context: GraphqlContext,
  kind: LabelKind,
  resources: readonly Resource[],
  labels: readonly string[],
  adding: boolean,
  argument: string,
): Promise<boolean> {
  await requireLabelPrivilege(context, kind, resources);
  const urns = adding
    ? await validateLabels(context, kind, labels, argument)
    : labels.map((label, index) => urnOf(label, `${argument}[${index}]`).urn);
  await validateResources(context, resources);
  const stamp = stampOf(context);
  await applyEdits(
    context,
    resources.map((resource) => labelEdit(kind, resource, urns, adding, stamp)),
  );
  return true;
}

interface LabelAssociationInput extends ResourceRef {
  readonly tagUrn?: string;
  readonly termUrn?: string;
}

interface LabelsInput extends ResourceRef {
  readonly tagUrns?: readonly string[];
  readonly termUrns?: readonly string[];
}

interface BatchLabelsInput {
  readonly resources: readonly (ResourceRef | null)[];
  readonly tagUrns?: readonly string[];
  readonly termUrns?: readonly string[];
}

type Args<T> = { readonly input: T };

/** `addTag`/`addTerm` and `removeTag`/`removeTerm`: one label on one resource. */
function single(kind: LabelKind, adding: boolean): FieldResolver {
  const argument = kind === TAGS ? 'tagUrn' : 'termUrn';
  return async (_source, { input }: Args<LabelAssociationInput>, context: GraphqlContext) => {
    const label = (kind === TAGS ? input.tagUrn : input.termUrn) ?? '';
    const resource = resourceOf(context, input);
    if (adding) return editLabels(context, kind, [resource], [label], true, argument);
    // DataHub answers false, writing nothing, when the URN to remove is not one of the kind's.
    const { urn, entityType } = urnOf(label, argument);
    await requireLabelPrivilege(context, kind, [resource]);
    await validateResources(context, [resource]);
    if (entityType !== kind.entityType) return false;
    await applyEdits(context, [labelEdit(kind, resource, [urn], false, stampOf(context))]);
    return true;
  };
}

/** `addTags`/`addTerms`: several labels on one resource. */
function several(kind: LabelKind): FieldResolver {
  const argument = kind === TAGS ? 'tagUrns' : 'termUrns';
  return async (_source, { input }: Args<LabelsInput>, context: GraphqlContext) => {
    const labels = (kind === TAGS ? input.tagUrns : input.termUrns) ?? [];
    return editLabels(context, kind, [resourceOf(context, input)], labels, true, argument);
  };
}

/** `batchAddTags`/`batchRemoveTags`, `batchAddTerms`/`batchRemoveTerms`: several labels on several resources. */
function batch(kind: LabelKind, adding: boolean): FieldResolver {
  const argument = kind === TAGS ? 'tagUrns' : 'termUrns';
  return async (_source, { input }: Args<BatchLabelsInput>, context: GraphqlContext) => {
    const labels = (kind === TAGS ? input.tagUrns : input.termUrns) ?? [];
    return editLabels(context, kind, resourcesOf(context, input.resources, 'resources'), labels, adding, argument);
  };
}

export const labelMutations: Readonly<Record<string, FieldResolver>> = {
  addTag: single(TAGS, true),
  addTags: several(TAGS),
  batchAddTags: batch(TAGS, true),
  removeTag: single(TAGS, false),
  batchRemoveTags: batch(TAGS, false),
  addTerm: single(TERMS, true),
  addTerms: several(TERMS),
  batchAddTerms: batch(TERMS, true),
  removeTerm: single(TERMS, false),
  batchRemoveTerms: batch(TERMS, false),
};
