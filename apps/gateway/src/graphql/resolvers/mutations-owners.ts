import { BadRequestError, type JsonObject } from '@strata/model';
import type { GraphqlContext } from '../context';
import type { FieldResolver } from '../schema';
import {
  applyEdits,
  editRequirement,
  existingOf,
  objectsOf,
  requirePrivilege,
  resourcesOf,
  stampOf,
  targetOf,
  UNAUTHORIZED,
  urnOf,
  validateResources,
  type AspectEdit,
  type Resource,
  type ResourceRef,
  type Target,
} from './mutations-support';

/**
 * Owners, added to and removed from entities as DataHub's owner mutations do. Every owner written carries both its
 * ownership type URN and the legacy `type` (the given type, else NONE; the URN given, else the system type of the
 * legacy one), with a MANUAL source; an owner already there with the same ownership type is replaced, and a removal
 * without a type removes the owner under every type. The `ownership` aspect is rewritten whole (its owners are matched
 * by ownership type URN, which no patch keying expresses), from the value read and only while it is still the latest.
 */

/** DataHub's answer to a caller who may not edit an entity's owners. */
const UNAUTHORIZED_OWNERS = 'Unauthorized to update owners. Please contact your DataHub administrator.';

/** DataHub's legacy ownership types; each has a system ownership type entity, `__system__` and its name in lower case. */
const OWNERSHIP_TYPES: ReadonlySet<string> = new Set([
  'TECHNICAL_OWNER',
  'BUSINESS_OWNER',
  'DATA_STEWARD',
  'NONE',
  'DATAOWNER',
  'DEVELOPER',
  'PRODUCER',
  'DELEGATE',
  'CONSUMER',
  'STAKEHOLDER',
  'CUSTOM',
]);

/** The system ownership type a legacy type stands for. */
export function systemOwnershipType(type: string): string {
  return `urn:li:ownershipType:__system__${type.toLowerCase()}`;
}

/** The system ownership types exist in every DataHub (they are part of its model), whether or not one was written. */
function isSystemOwnershipType(urn: string): boolean {
  const prefix = 'urn:li:ownershipType:__system__';
  return urn.startsWith(prefix) && OWNERSHIP_TYPES.has(urn.slice(prefix.length).toUpperCase());
}

/** An owner to write: who, with which legacy type and ownership type URN. */
export interface NewOwner {
  readonly owner: string;
  readonly type: string;
  readonly typeUrn: string;
}

/**
 * Whether an owner entry is `owner` under `typeUrn` (any type when none is given), an entry without a type URN being
 * matched by the system type of its legacy type — DataHub's rule for which entries an added owner replaces and a
 * removal removes.
 */
export function isSameOwner(entry: JsonObject, owner: string, typeUrn: string | undefined): boolean {
  if (entry['owner'] !== owner) return false;
  if (typeUrn === undefined) return true;
  if (typeof entry['typeUrn'] === 'string') return entry['typeUrn'] === typeUrn;
  return typeof entry['type'] === 'string' && systemOwnershipType(entry['type']) === typeUrn;
}

/** The ownership with these owners added (each replacing itself under the same type), stamped; undefined if unchanged. */
export function withOwners(
  current: JsonObject | undefined,
  owners: readonly NewOwner[],
  stamp: { readonly time: number; readonly actor: string },
): JsonObject | undefined {
  const before = objectsOf(current?.['owners']);
  let after = before;
  for (const { owner, type, typeUrn } of owners) {
    after = [
      ...after.filter((entry) => !isSameOwner(entry, owner, typeUrn)),
      { owner, type, typeUrn, source: { type: 'MANUAL' } },
    ];
  }
  if (JSON.stringify(after) === JSON.stringify(before)) return undefined;
  return { ...current, owners: after, lastModified: stamp };
}

/** The ownership without these owners (under `typeUrn`, or any type), stamped; undefined if none was there. */
export function withoutOwners(
  current: JsonObject | undefined,
  owners: readonly string[],
  typeUrn: string | undefined,
  stamp: { readonly time: number; readonly actor: string },
): JsonObject | undefined {
  const before = objectsOf(current?.['owners']);
  const after = before.filter((entry) => !owners.some((owner) => isSameOwner(entry, owner, typeUrn)));
  if (after.length === before.length) return undefined;
  return { ...current, owners: after, lastModified: stamp };
}

interface OwnerInput {
  readonly ownerUrn: string;
  readonly ownerEntityType: 'CORP_USER' | 'CORP_GROUP';
  readonly type?: string | null;
  readonly ownershipTypeUrn?: string | null;
}

/**
 * The owners of an input, checked as DataHub's `validateOwner` does — a user or group URN as its entity type says, an
 * owner that exists, an ownership type that exists, a type or an ownership type — each problem a 400.
 */
async function validatedOwners(
  context: GraphqlContext,
  inputs: readonly OwnerInput[],
  defaultTypeUrn: string | undefined,
): Promise<NewOwner[]> {
  const parsed = inputs.map((input, index) => {
    const owner = urnOf(input.ownerUrn, `owners[${index}].ownerUrn`);
    const given = input.ownershipTypeUrn ?? defaultTypeUrn;
    const typeUrn = given === undefined ? undefined : urnOf(given, `owners[${index}].ownershipTypeUrn`).urn;
    return { input, owner, typeUrn };
  });
  const existing = await existingOf(context, [
    ...parsed.map(({ owner }) => owner.urn),
    ...parsed.flatMap(({ typeUrn }) => (typeUrn === undefined || isSystemOwnershipType(typeUrn) ? [] : [typeUrn])),
  ]);
  return parsed.map(({ input, owner, typeUrn }) => {
    if (input.ownerEntityType === 'CORP_GROUP' && owner.entityType !== 'corpGroup') {
      throw new BadRequestError(
        `Failed to change ownership for resource(s). Expected a corp group urn, found ${owner.urn}`,
      );
    }
    if (input.ownerEntityType === 'CORP_USER' && owner.entityType !== 'corpuser') {
      throw new BadRequestError(
        `Failed to change ownership for resource(s). Expected a corp user urn, found ${owner.urn}.`,
      );
    }
    if (!existing.has(owner.urn)) {
      throw new BadRequestError(
        `Failed to change ownership for resource(s). Owner with urn ${owner.urn} does not exist.`,
      );
    }
    if (typeUrn !== undefined && !isSystemOwnershipType(typeUrn) && !existing.has(typeUrn)) {
      throw new BadRequestError(
        `Failed to change ownership for resource(s). Custom Ownership type with urn ${typeUrn} does not exist.`,
      );
    }
    const type = input.type ?? undefined;
    if (type === undefined && typeUrn === undefined) {
      throw new BadRequestError(
        'Failed to change ownership for resource(s). Expected either type or ownershipTypeUrn to be specified.',
      );
    }
    const legacy = type ?? 'NONE';
    return { owner: owner.urn, type: legacy, typeUrn: typeUrn ?? systemOwnershipType(legacy) };
  });
}

/** EDIT_ENTITY or EDIT_ENTITY_OWNERS on the entity; for glossary entities, managing glossaries also does. */
async function requireOwnersPrivilege(context: GraphqlContext, targets: readonly Target[], message: string) {
  const glossary = targets.filter(
    (target) => target.entity.name === 'glossaryTerm' || target.entity.name === 'glossaryNode',
  );
  const others = targets.filter((target) => !glossary.includes(target));
  await requirePrivilege(context, editRequirement('EDIT_ENTITY_OWNERS'), others, message);
  await requirePrivilege(context, editRequirement('EDIT_ENTITY_OWNERS', 'MANAGE_GLOSSARIES'), glossary, message);
}

/** Refuses an entity that does not exist, in the words of DataHub's owner mutations. */
async function requireResource(context: GraphqlContext, target: Target): Promise<void> {
  if (!(await existingOf(context, [target.urn])).has(target.urn)) {
    throw new BadRequestError(`Failed to change ownership for resource ${target.urn}. Resource does not exist.`);
  }
}

function addEdit(context: GraphqlContext, target: Target, owners: readonly NewOwner[]): AspectEdit {
  const stamp = stampOf(context);
  return {
    target,
    aspect: 'ownership',
    change: (current) => {
      const value = withOwners(current, owners, stamp);
      return value === undefined ? undefined : { kind: 'value', value };
    },
  };
}

function removeEdit(
  context: GraphqlContext,
  target: Target,
  owners: readonly string[],
  typeUrn: string | undefined,
): AspectEdit {
  const stamp = stampOf(context);
  return {
    target,
    aspect: 'ownership',
    change: (current) => {
      const value = withoutOwners(current, owners, typeUrn, stamp);
      return value === undefined ? undefined : { kind: 'value', value };
    },
  };
}

/** Owners can be set on entities only: DataHub refuses a sub-resource in a batch. */
function refuseSubResources(resources: readonly Resource[], verb: 'applied to' | 'removed from'): void {
  if (resources.some((resource) => resource.subResource !== undefined)) {
    throw new BadRequestError(`Malformed input provided: owners cannot be ${verb} subresources.`);
  }
}

type Args<T> = { readonly input: T };

interface AddOwnerInput extends OwnerInput {
  readonly resourceUrn: string;
}

const addOwner: FieldResolver = async (_source, { input }: Args<AddOwnerInput>, context: GraphqlContext) => {
  const target = targetOf(context, input.resourceUrn, 'resourceUrn');
  await requireOwnersPrivilege(context, [target], UNAUTHORIZED_OWNERS);
  await requireResource(context, target);
  const owners = await validatedOwners(context, [input], undefined);
  await applyEdits(context, [addEdit(context, target, owners)]);
  return true;
};

const addOwners: FieldResolver = async (
  _source,
  { input }: Args<{ readonly resourceUrn: string; readonly owners: readonly OwnerInput[] }>,
  context: GraphqlContext,
) => {
  const target = targetOf(context, input.resourceUrn, 'resourceUrn');
  await requireOwnersPrivilege(context, [target], UNAUTHORIZED_OWNERS);
  await requireResource(context, target);
  const owners = await validatedOwners(context, input.owners, undefined);
  await applyEdits(context, [addEdit(context, target, owners)]);
  return true;
};

const batchAddOwners: FieldResolver = async (
  _source,
  {
    input,
  }: Args<{
    readonly owners: readonly OwnerInput[];
    readonly ownershipTypeUrn?: string | null;
    readonly resources: readonly (ResourceRef | null)[];
  }>,
  context: GraphqlContext,
) => {
  const resources = resourcesOf(context, input.resources, 'resources');
  refuseSubResources(resources, 'applied to');
  await requireOwnersPrivilege(
    context,
    resources.map((resource) => resource.target),
    UNAUTHORIZED,
  );
  // The batch's ownership type is the one of every owner that names none of its own.
  const owners = await validatedOwners(context, input.owners, input.ownershipTypeUrn ?? undefined);
  await validateResources(context, resources);
  await applyEdits(
    context,
    resources.map((resource) => addEdit(context, resource.target, owners)),
  );
  return true;
};

const removeOwner: FieldResolver = async (
  _source,
  {
    input,
  }: Args<{ readonly ownerUrn: string; readonly resourceUrn: string; readonly ownershipTypeUrn?: string | null }>,
  context: GraphqlContext,
) => {
  const owner = urnOf(input.ownerUrn, 'ownerUrn').urn;
  const target = targetOf(context, input.resourceUrn, 'resourceUrn');
  const typeUrn = input.ownershipTypeUrn == null ? undefined : urnOf(input.ownershipTypeUrn, 'ownershipTypeUrn').urn;
  await requireOwnersPrivilege(context, [target], UNAUTHORIZED_OWNERS);
  await requireResource(context, target);
  await applyEdits(context, [removeEdit(context, target, [owner], typeUrn)]);
  return true;
};

const batchRemoveOwners: FieldResolver = async (
  _source,
  {
    input,
  }: Args<{
    readonly ownerUrns: readonly string[];
    readonly ownershipTypeUrn?: string | null;
    readonly resources: readonly (ResourceRef | null)[];
  }>,
  context: GraphqlContext,
) => {
  const owners = input.ownerUrns.map((owner, index) => urnOf(owner, `ownerUrns[${index}]`).urn);
  const typeUrn = input.ownershipTypeUrn == null ? undefined : urnOf(input.ownershipTypeUrn, 'ownershipTypeUrn').urn;
  const resources = resourcesOf(context, input.resources, 'resources');
  refuseSubResources(resources, 'removed from');
  await requireOwnersPrivilege(
    context,
    resources.map((resource) => resource.target),
    UNAUTHORIZED_OWNERS,
  );
  await validateResources(context, resources);
  await applyEdits(
    context,
    resources.map((resource) => removeEdit(context, resource.target, owners, typeUrn)),
  );
  return true;
};

export const ownerMutations: Readonly<Record<string, FieldResolver>> = {
  addOwner,
  addOwners,
  batchAddOwners,
  removeOwner,
  batchRemoveOwners,
};
