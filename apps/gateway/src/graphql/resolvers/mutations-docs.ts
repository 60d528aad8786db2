import { BadRequestError, validateProposal, ValidationError, type JsonObject } from '@strata/model';
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
  stampOf,
  targetOf,
  validateResources,
  type AspectEdit,
  type Target,
} from './mutations-support';

/**
 * Documentation: an entity's description (`updateDescription`) and its links (`addLink`, `removeLink`), written where
 * DataHub's mutations write them.
 */

/** Where an entity type's description is edited, and what editing it takes. */
export interface Described {
  readonly aspect: string;
  /** The field holding the description (glossary entities call it their definition). */
  readonly field: 'description' | 'definition';
  /** The finer privileges that allow it, beside EDIT_ENTITY. */
  readonly privileges: readonly string[];
  /** When the aspect was never written: DataHub's refusal, or undefined to make the aspect from the description. */
  readonly absent?: string;
}

const DOCS = ['EDIT_ENTITY_DOCS', 'MANAGE_ASSET_SUMMARY'];
const editable = (aspect: string): Described => ({ aspect, field: 'description', privileges: DOCS });

/**
 * The entity types whose description `updateDescription` edits, each in its editable aspect (DataHub's list, with the
 * dataset's own description — DataHub edits only its fields' there — and the charts, dashboards, flows and jobs, whose
 * editable aspects hold a description the same way).
 */
export const DESCRIBED: Readonly<Record<string, Described>> = {
  dataset: { aspect: 'editableDatasetProperties', field: 'description', privileges: ['EDIT_ENTITY_DOCS'] },
  container: { aspect: 'editableContainerProperties', field: 'description', privileges: ['EDIT_ENTITY_DOCS'] },
  domain: {
    aspect: 'domainProperties',
    field: 'description',
    privileges: ['EDIT_ENTITY_DOCS', 'MANAGE_DOMAINS'],
    absent: 'Properties for this Domain do not yet exist!',
  },
  glossaryTerm: {
    aspect: 'glossaryTermInfo',
    field: 'definition',
    privileges: [...DOCS, 'MANAGE_GLOSSARIES'],
    absent: 'Properties for this Glossary Term do not yet exist!',
  },
  glossaryNode: {
    aspect: 'glossaryNodeInfo',
    field: 'definition',
    privileges: [...DOCS, 'MANAGE_GLOSSARIES'],
    absent: 'Glossary Node does not exist',
  },
  tag: editable('tagProperties'),
  corpGroup: editable('corpGroupEditableInfo'),
  notebook: editable('editableNotebookProperties'),
  mlModel: editable('editableMlModelProperties'),
  mlModelGroup: editable('editableMlModelGroupProperties'),
  mlFeatureTable: editable('editableMlFeatureTableProperties'),
  mlFeature: editable('editableMlFeatureProperties'),
  mlPrimaryKey: editable('editableMlPrimaryKeyProperties'),
  dataProduct: editable('dataProductProperties'),
  businessAttribute: editable('businessAttributeInfo'),
  application: editable('applicationProperties'),
  chart: editable('editableChartProperties'),
  dashboard: editable('editableDashboardProperties'),
  dataFlow: editable('editableDataFlowProperties'),
  dataJob: editable('editableDataJobProperties'),
};

/**
 * The edit of an entity's description: a patch of the one field where the aspect exists (whatever else it holds is
 * kept); where it does not, the aspect made from the description (a tag's with its name, as DataHub makes it), or
 * DataHub's refusal for the entities whose aspect needs more than a description.
 */
export function descriptionEdit(
  context: GraphqlContext,
  target: Target,
  described: Described,
  description: string,
): AspectEdit {
  return {
    target,
    aspect: described.aspect,
    change: (current) => {
      if (current !== undefined) {
        return {
          kind: 'patch',
          operations: [{ op: 'add', path: `/${described.field}`, value: description }],
          arrayPrimaryKeys: {},
        };
      }
      if (described.absent !== undefined) throw new BadRequestError(described.absent);
      const value: JsonObject =
        target.entity.name === 'tag'
          ? { name: target.urn.slice('urn:li:tag:'.length), [described.field]: description }
          : { [described.field]: description };
      try {
        validateProposal(context.registry, {
          entityType: target.entity.name,
          entityUrn: target.urn,
          changeType: 'UPSERT',
          aspectName: described.aspect,
          aspect: { value: JSON.stringify(value), contentType: 'application/json' },
        });
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        throw new BadRequestError(
          `Failed to update the description of ${target.urn}: it has no ${described.aspect} yet, and a description alone does not make one`,
          { cause: error },
        );
      }
      return { kind: 'value', value };
    },
  };
}

/** A dataset field's description, in its entry of `editableSchemaMetadata` (made when missing). */
function fieldDescriptionEdit(target: Target, field: string, description: string): AspectEdit {
  return {
    target,
    aspect: 'editableSchemaMetadata',
    change: () => ({
      kind: 'patch',
      operations: [
        { op: 'add', path: `/editableSchemaFieldInfo/${pointerToken(field)}/description`, value: description },
      ],
    }),
  };
}

interface DescriptionUpdateInput {
  readonly description: string;
  readonly resourceUrn: string;
  readonly subResource?: string | null;
  readonly subResourceType?: string | null;
}

type Args<T> = { readonly input: T };

const updateDescription: FieldResolver = async (
  _source,
  { input }: Args<DescriptionUpdateInput>,
  context: GraphqlContext,
) => {
  const resource = resourceOf(context, input);
  const { target } = resource;
  const described = DESCRIBED[target.entity.name];
  if (described === undefined) {
    throw new BadRequestError(`Failed to update description. Unsupported resource type ${target.urn} provided.`);
  }
  const onField =
    target.entity.name === 'dataset' && (fieldOf(resource) !== undefined || input.subResourceType != null);
  if (onField) {
    await requirePrivilege(context, editRequirement('EDIT_DATASET_COL_DESCRIPTION'), [target]);
    await validateResources(context, [resource]);
    await applyEdits(context, [fieldDescriptionEdit(target, fieldOf(resource) ?? '', input.description)]);
    return true;
  }
  await requirePrivilege(context, editRequirement(...described.privileges), [target]);
  if (!(await existingOf(context, [target.urn])).has(target.urn)) {
    throw new BadRequestError(`Failed to update ${target.urn}. ${target.urn} does not exist.`);
  }
  await applyEdits(context, [descriptionEdit(context, target, described, input.description)]);
  return true;
};

/** EDIT_ENTITY or EDIT_ENTITY_DOC_LINKS; for glossary entities, managing glossaries also does. */
export function linksRequirement(target: Target) {
  const glossary = target.entity.name === 'glossaryTerm' || target.entity.name === 'glossaryNode';
  return glossary
    ? editRequirement('EDIT_ENTITY_DOC_LINKS', 'MANAGE_GLOSSARIES')
    : editRequirement('EDIT_ENTITY_DOC_LINKS');
}

/** Links are keyed by URL, then label, as DataHub tells them apart. */
const LINK_KEYS = { elements: ['url', 'description'] };

/** Whether text could be a URI, as DataHub parses a link's URL: not empty, no whitespace or control characters. */
function uriLike(text: string): boolean {
  if (text === '' || /\s/.test(text)) return false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return false;
  }
  return true;
}

/** Checks a link's URL and its resource as DataHub does, each problem a 400 in its words. */
async function validateLink(context: GraphqlContext, target: Target, url: string): Promise<void> {
  if (!uriLike(url)) {
    throw new BadRequestError(`Failed to change institutional memory for resource ${target.urn}. Expected an url.`);
  }
  if (!(await existingOf(context, [target.urn])).has(target.urn)) {
    throw new BadRequestError(
      `Failed to change institutional memory for resource ${target.urn}. Resource does not exist.`,
    );
  }
}

/** The links of an institutional memory with this URL (and label, when given). */
function linksOf(current: JsonObject | undefined, url: string, label: string | undefined): JsonObject[] {
  return objectsOf(current?.['elements']).filter(
    (link) => link['url'] === url && (label === undefined || link['description'] === label),
  );
}

interface AddLinkInput {
  readonly label: string;
  readonly linkUrl: string;
  readonly resourceUrn: string;
  readonly settings?: { readonly showInAssetPreview?: boolean | null } | null;
}

const addLink: FieldResolver = async (_source, { input }: Args<AddLinkInput>, context: GraphqlContext) => {
  const target = targetOf(context, input.resourceUrn, 'resourceUrn');
  await requirePrivilege(context, linksRequirement(target), [target]);
  await validateLink(context, target, input.linkUrl);
  const showInAssetPreview = input.settings?.showInAssetPreview ?? undefined;
  const link: JsonObject = {
    url: input.linkUrl,
    description: input.label,
    createStamp: stampOf(context),
    ...(input.settings == null ? {} : { settings: showInAssetPreview === undefined ? {} : { showInAssetPreview } }),
  };
  await applyEdits(context, [
    {
      target,
      aspect: 'institutionalMemory',
      // A link with the same URL and label is there already: DataHub keeps it as it is.
      change: (current) =>
        linksOf(current, input.linkUrl, input.label).length > 0
          ? undefined
          : {
              kind: 'patch',
              operations: [
                {
                  op: 'add',
                  path: `/elements/${pointerToken(input.linkUrl)}/${pointerToken(input.label)}`,
                  value: link,
                },
              ],
              arrayPrimaryKeys: LINK_KEYS,
            },
    },
  ]);
  return true;
};

const removeLink: FieldResolver = async (
  _source,
  { input }: Args<{ readonly label?: string | null; readonly linkUrl: string; readonly resourceUrn: string }>,
  context: GraphqlContext,
) => {
  const target = targetOf(context, input.resourceUrn, 'resourceUrn');
  await requirePrivilege(context, linksRequirement(target), [target]);
  await validateLink(context, target, input.linkUrl);
  const label = input.label ?? undefined;
  // With a label, the link with that URL and label goes; without, every link with that URL.
  const path =
    label === undefined
      ? `/elements/${pointerToken(input.linkUrl)}`
      : `/elements/${pointerToken(input.linkUrl)}/${pointerToken(label)}`;
  await applyEdits(context, [
    {
      target,
      aspect: 'institutionalMemory',
      change: (current) =>
        linksOf(current, input.linkUrl, label).length === 0
          ? undefined
          : { kind: 'patch', operations: [{ op: 'remove', path }], arrayPrimaryKeys: LINK_KEYS },
    },
  ]);
  return true;
};

export const docsMutations: Readonly<Record<string, FieldResolver>> = { updateDescription, addLink, removeLink };
