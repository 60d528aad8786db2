import { BadRequestError, formatUrn, InvalidUrnError, type JsonObject } from '@strata/model';
import type { GraphqlContext } from '../context';
import type { FieldResolver } from '../schema';
import {
  applyEdits,
  editRequirement,
  existingOf,
  fieldOf,
  requirePrivilege,
  resourceOf,
  resourcesOf,
  targetOf,
  urnOf,
  validateResources,
  type AspectEdit,
  type Resource,
  type ResourceRef,
  type Target,
} from './mutations-support';

/**
 * Where an entity stands: its domain (`setDomain`, `unsetDomain`, `batchSetDomain`), its deprecation
 * (`updateDeprecation`, `batchUpdateDeprecation`) and its soft deletion (`batchUpdateSoftDeleted`), written as
 * DataHub's mutations write them.
 */

type Args<T> = { readonly input: T };

/** EDIT_ENTITY or EDIT_DOMAINS_PRIVILEGE; for glossary entities, managing glossaries also does. */
async function requireDomainsPrivilege(context: GraphqlContext, targets: readonly Target[]): Promise<void> {
  const glossary = targets.filter(
    (target) => target.entity.name === 'glossaryTerm' || target.entity.name === 'glossaryNode',
  );
  const others = targets.filter((target) => !glossary.includes(target));
  await requirePrivilege(context, editRequirement('EDIT_DOMAINS_PRIVILEGE'), others);
  await requirePrivilege(context, editRequirement('EDIT_DOMAINS_PRIVILEGE', 'MANAGE_GLOSSARIES'), glossary);
}

/** An entity's domains set to these (none: unset), whatever they were; the aspect's other fields kept. */
function domainEdit(target: Target, domains: readonly string[]): AspectEdit {
  return {
    target,
    aspect: 'domains',
    change: () => ({ kind: 'patch', operations: [{ op: 'add', path: '/domains', value: [...domains] }] }),
  };
}

/** A domain URN that names a domain that exists; a 400 in `message`'s words otherwise. */
async function validDomain(context: GraphqlContext, text: string, argument: string, message: (urn: string) => string) {
  const { urn, entityType } = urnOf(text, argument);
  if (entityType !== 'domain' || !(await existingOf(context, [urn])).has(urn)) {
    throw new BadRequestError(message(urn));
  }
  return urn;
}

const setDomain: FieldResolver = async (
  _source,
  args: { readonly domainUrn: string; readonly entityUrn: string },
  context: GraphqlContext,
) => {
  const target = targetOf(context, args.entityUrn, 'entityUrn');
  await requireDomainsPrivilege(context, [target]);
  const domain = await validDomain(
    context,
    args.domainUrn,
    'domainUrn',
    (urn) => `Failed to add Entity ${target.urn} to Domain ${urn}. Domain does not exist.`,
  );
  if (!(await existingOf(context, [target.urn])).has(target.urn)) {
    throw new BadRequestError(`Failed to add Entity ${target.urn} to Domain ${domain}. Entity does not exist.`);
  }
  await applyEdits(context, [domainEdit(target, [domain])]);
  return true;
};

const unsetDomain: FieldResolver = async (_source, args: { readonly entityUrn: string }, context: GraphqlContext) => {
  const target = targetOf(context, args.entityUrn, 'entityUrn');
  await requireDomainsPrivilege(context, [target]);
  if (!(await existingOf(context, [target.urn])).has(target.urn)) {
    throw new BadRequestError(`Failed to remove Entity ${target.urn} from its Domain. Entity does not exist.`);
  }
  await applyEdits(context, [domainEdit(target, [])]);
  return true;
};

const batchSetDomain: FieldResolver = async (
  _source,
  { input }: Args<{ readonly domainUrn?: string | null; readonly resources: readonly (ResourceRef | null)[] }>,
  context: GraphqlContext,
) => {
  const resources = resourcesOf(context, input.resources, 'resources');
  await requireDomainsPrivilege(
    context,
    resources.map((resource) => resource.target),
  );
  const domain =
    input.domainUrn == null
      ? undefined
      : await validDomain(
          context,
          input.domainUrn,
          'domainUrn',
          (urn) => `Failed to validate Domain with urn ${urn}. Urn does not exist.`,
        );
  await validateResources(context, resources);
  await applyEdits(
    context,
    resources.map((resource) => domainEdit(resource.target, domain === undefined ? [] : [domain])),
  );
  return true;
};

interface DeprecationInput {
  readonly deprecated: boolean;
  readonly note?: string | null;
  readonly decommissionTime?: number | null;
  readonly replacement?: string | null;
}

/** The `deprecation` aspect a deprecation input sets, whole: the note is required, so it is empty when not given. */
export function deprecationOf(input: DeprecationInput, actor: string, replacement: string | undefined): JsonObject {
  return {
    deprecated: input.deprecated,
    note: input.note ?? '',
    actor,
    ...(input.decommissionTime == null ? {} : { decommissionTime: input.decommissionTime }),
    ...(replacement === undefined ? {} : { replacement }),
  };
}

/**
 * Where a resource's deprecation is written: the entity's own, or — for a field of a dataset — the deprecation of its
 * schema field entity, as DataHub writes it.
 */
function deprecationTarget(context: GraphqlContext, resource: Resource): Target {
  const field = fieldOf(resource);
  if (field === undefined) return resource.target;
  let urn: string;
  try {
    urn = formatUrn('schemaField', [resource.target.urn, field]);
  } catch (error) {
    if (!(error instanceof InvalidUrnError)) throw error;
    throw new BadRequestError(
      `Failed to update the deprecation of field ${field} of ${resource.target.urn}: ${error.message}`,
    );
  }
  return targetOf(context, urn, 'subResource');
}

async function updateDeprecations(
  context: GraphqlContext,
  resources: readonly Resource[],
  input: DeprecationInput,
  missing: ((urn: string) => string) | undefined,
): Promise<boolean> {
  await requirePrivilege(
    context,
    editRequirement('EDIT_DEPRECATION_PRIVILEGE'),
    resources.map((resource) => resource.target),
  );
  const replacement = input.replacement == null ? undefined : urnOf(input.replacement, 'replacement').urn;
  if (missing !== undefined) {
    const existing = await existingOf(
      context,
      resources.map((resource) => resource.target.urn),
    );
    const absent = resources.find((resource) => !existing.has(resource.target.urn));
    if (absent !== undefined) throw new BadRequestError(missing(absent.target.urn));
  }
  await validateResources(context, resources);
  const value = deprecationOf(input, context.request.actor, replacement);
  await applyEdits(
    context,
    resources.map((resource) => ({
      target: deprecationTarget(context, resource),
      aspect: 'deprecation',
      change: () => ({ kind: 'replace', value }),
    })),
  );
  return true;
}

const updateDeprecation: FieldResolver = async (
  _source,
  {
    input,
  }: Args<
    DeprecationInput & {
      readonly urn: string;
      readonly subResource?: string | null;
      readonly subResourceType?: string | null;
    }
  >,
  context: GraphqlContext,
) => {
  const resource = resourceOf(context, { ...input, resourceUrn: input.urn }, 'urn');
  return updateDeprecations(
    context,
    [resource],
    input,
    (urn) => `Failed to update deprecation for Entity ${urn}. Entity does not exist.`,
  );
};

const batchUpdateDeprecation: FieldResolver = async (
  _source,
  { input }: Args<DeprecationInput & { readonly resources: readonly (ResourceRef | null)[] }>,
  context: GraphqlContext,
) => updateDeprecations(context, resourcesOf(context, input.resources, 'resources'), input, undefined);

const batchUpdateSoftDeleted: FieldResolver = async (
  _source,
  { input }: Args<{ readonly deleted: boolean; readonly urns: readonly string[] }>,
  context: GraphqlContext,
) => {
  const targets = input.urns.map((urn, index) => targetOf(context, urn, `urns[${index}]`));
  await requirePrivilege(context, editRequirement('DELETE_ENTITY'), targets);
  const existing = await existingOf(
    context,
    targets.map((target) => target.urn),
  );
  const absent = targets.find((target) => !existing.has(target.urn));
  if (absent !== undefined) {
    throw new BadRequestError(`Failed to soft delete entity with urn ${absent.urn}. Entity does not exist.`);
  }
  await applyEdits(
    context,
    targets.map((target) => ({
      target,
      aspect: 'status',
      change: () => ({ kind: 'patch', operations: [{ op: 'add', path: '/removed', value: input.deleted }] }),
    })),
  );
  return true;
};

export const lifecycleMutations: Readonly<Record<string, FieldResolver>> = {
  setDomain,
  unsetDomain,
  batchSetDomain,
  updateDeprecation,
  batchUpdateDeprecation,
  batchUpdateSoftDeleted,
};
