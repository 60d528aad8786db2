import type { PrivilegeRequirement } from '@strata/auth';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  InvalidUrnError,
  parseUrn,
  PreconditionFailedError,
  StrataError,
  validateProposal,
  type EntitySpec,
  type JsonObject,
  type PatchOperation,
  type ValidatedProposal,
} from '@strata/model';
import type { WriteAuthorization } from '../../auth/authorizer';
import type { GraphqlContext, LoadedAspect } from '../context';

/**
 * What the mutations of the GraphQL API share: naming their targets, checking the caller's privileges on them,
 * checking that what they name exists, and writing through the gateway's write path as the caller — ordinary proposals,
 * with the caller's identity on every record they cause, so that the audit trail, search and every read model see them
 * as they see any other write.
 *
 * Each mutation checks the privilege DataHub's resolver checks (EDIT_ENTITY, or the finer one of what it edits) and
 * then writes with the `guards` authorization: the privilege is the mutation's own, and the guards of the security
 * inputs (users' status, policies, tokens…) still hold, so that no mutation changes who may do what without the
 * platform privilege that guards it.
 *
 * Concurrent edits do not lose each other: an edit is a PATCH where the writer applies DataHub's patch semantics to
 * the aspect (keyed arrays: tags, terms, a field's tags and terms, links; single fields: a description, `removed`), so
 * that the writer applies it to the latest value; otherwise it is the whole new value computed from the value read,
 * written only while that value is still the latest (`If-Version-Match`), and computed again when it is not.
 */

/** DataHub's answer to a caller without the privilege a mutation needs. */
export const UNAUTHORIZED = 'Unauthorized to perform this action. Please contact your DataHub administrator.';

/** How often a write computed from a value read is tried again when another write got in between. */
const ATTEMPTS = 5;

/** Existence checks run at once, at most. */
const CONCURRENT_CHECKS = 16;

/** Entities named per batched read. */
const READ_BATCH = 100;

/** The aspect DataHub's mutations mark their writes with: they come from the UI's API. */
const UI_SYSTEM_METADATA = { properties: { appSource: 'ui' } };

/** EDIT_ENTITY, or any one of the finer privileges (each alone is enough). */
export function editRequirement(...finer: readonly string[]): PrivilegeRequirement {
  return [['EDIT_ENTITY'], ...finer.map((privilege) => [privilege])];
}

/** An entity a mutation names: its URN as given (parsed) and its type in the registry. */
export interface Target {
  readonly urn: string;
  readonly entity: EntitySpec;
}

/** A URN the client sent, parsed; a 400 naming the argument when it is no URN. */
export function urnOf(text: string, argument: string): { readonly urn: string; readonly entityType: string } {
  try {
    const urn = parseUrn(text);
    return { urn: urn.toString(), entityType: urn.entityType };
  } catch (error) {
    if (error instanceof InvalidUrnError) throw new BadRequestError(`${argument}: ${error.message}`, { cause: error });
    throw error;
  }
}

/** The entity a URN names, of a type the registry knows; a 400 otherwise. */
export function targetOf(context: GraphqlContext, text: string, argument: string): Target {
  const { urn, entityType } = urnOf(text, argument);
  const entity = context.registry.entity(entityType);
  if (entity === undefined) {
    throw new BadRequestError(`${argument}: Failed to find entity with name ${entityType} in EntityRegistry`);
  }
  return { urn, entity };
}

/**
 * Refuses the caller unless it holds the requirement on every target: a 401 for an anonymous caller, a 403 with
 * `message` otherwise. Nothing is checked where authentication is off (as the REST writes check nothing then); the
 * guards of the security inputs apply to the writes themselves either way.
 */
export async function requirePrivilege(
  context: GraphqlContext,
  requirement: PrivilegeRequirement,
  targets: readonly Target[],
  message = UNAUTHORIZED,
): Promise<void> {
  const authorizer = context.authorizer;
  if (authorizer === undefined || !authorizer.enabled || targets.length === 0) return;
  authorizer.requireCaller(context.request, false);
  const unique = new Map(targets.map((target) => [target.urn, { type: target.entity.name, urn: target.urn }]));
  const denied = await authorizer.denied(context.request, requirement, [...unique.values()]);
  if (denied.length > 0) throw new ForbiddenError(message);
}

/**
 * The URNs of `urns` whose entity exists (its key aspect is stored; a soft-deleted entity exists), as DataHub's
 * mutations ask. Read as the gateway: the caller's privilege on what it edits was checked before.
 */
export async function existingOf(context: GraphqlContext, urns: readonly string[]): Promise<Set<string>> {
  const unique = [...new Set(urns)];
  const found = new Set<string>();
  for (let index = 0; index < unique.length; index += CONCURRENT_CHECKS) {
    const slice = unique.slice(index, index + CONCURRENT_CHECKS);
    const answers = await Promise.all(
      slice.map((urn) =>
        context.system({ method: 'POST', resource: '/entities', action: 'exists', body: { urn } }, context.request),
      ),
    );
    answers.forEach((answer, position) => {
      const urn = slice[position];
      if (urn !== undefined && (answer as { value?: unknown } | null)?.value === true) found.add(urn);
    });
  }
  return found;
}

/** Which aspects to read of which entities. */
export interface AspectRead {
  readonly target: Target;
  readonly aspects: readonly string[];
}

/** Latest aspects by URN, then aspect name; an aspect never written is absent. */
export type LatestAspects = ReadonlyMap<string, ReadonlyMap<string, LoadedAspect>>;

/** The latest values of some aspects of some entities, read from the primary store in batches (as the gateway). */
export async function latestOf(context: GraphqlContext, reads: readonly AspectRead[]): Promise<LatestAspects> {
  const byType = new Map<string, { urns: Set<string>; aspects: Set<string> }>();
  for (const { target, aspects } of reads) {
    const known = aspects.filter((aspect) => target.entity.aspect(aspect) !== undefined);
    if (known.length === 0) continue;
    const group = byType.get(target.entity.name) ?? { urns: new Set<string>(), aspects: new Set<string>() };
    group.urns.add(target.urn);
    for (const aspect of known) group.aspects.add(aspect);
    byType.set(target.entity.name, group);
  }
  const found = new Map<string, Map<string, LoadedAspect>>();
  for (const { urns, aspects } of byType.values()) {
    const all = [...urns];
    for (let index = 0; index < all.length; index += READ_BATCH) {
      const ids = all.slice(index, index + READ_BATCH);
      const body = (await context.system(
        { method: 'GET', resource: '/entitiesV2', query: { ids, aspects: [...aspects] } },
        context.request,
      )) as { results?: Record<string, { aspects?: Record<string, LoadedAspect | undefined> }> } | null;
      for (const [urn, entity] of Object.entries(body?.results ?? {})) {
        const values = found.get(urn) ?? new Map<string, LoadedAspect>();
        for (const [name, aspect] of Object.entries(entity.aspects ?? {})) {
          if (aspect !== undefined && aspects.has(name)) values.set(name, aspect);
        }
        found.set(urn, values);
      }
    }
  }
  return found;
}

/**
 * What an edit writes of its aspect:
 * - `patch`: JSON Patch operations the writer applies to the latest value — with the aspect's own keyed arrays
 *   (DataHub's template), or, with `arrayPrimaryKeys`, with those arrays keyed so (DataHub's generic patch; `{}` keys
 *   nothing and works on any aspect);
 * - `value`: the whole new value computed from the value read, written only while that value is still the latest;
 * - `replace`: the whole new value, whatever the latest is (an aspect the mutation sets entirely).
 */
export type AspectChange =
  | {
      readonly kind: 'patch';
      readonly operations: readonly PatchOperation[];
      readonly arrayPrimaryKeys?: Readonly<Record<string, readonly string[]>>;
    }
  | { readonly kind: 'value'; readonly value: JsonObject }
  | { readonly kind: 'replace'; readonly value: JsonObject };

/** One aspect a mutation writes. */
export interface AspectEdit {
  readonly target: Target;
  readonly aspect: string;
  /** What to write, from the latest value (undefined when the aspect was never written); undefined: nothing. */
  readonly change: (current: JsonObject | undefined) => AspectChange | undefined;
}

/** Request ids handed out per GraphQL request: each submission needs its own (the writer's ledger keys by them). */
const submissions = new WeakMap<GraphqlContext, number>();

/**
 * Writes the edits as the caller, every proposal validated before anything is published (one invalid edit writes
 * nothing), all of them in one submission that waits for the writer. An edit computed from a value that another write
 * replaced in between is computed again from the new value and written again, up to {@link ATTEMPTS} times.
 */
export async function applyEdits(
  context: GraphqlContext,
  edits: readonly AspectEdit[],
  authorization: WriteAuthorization = { kind: 'guards', context: context.request },
): Promise<void> {
  for (const edit of edits) {
    if (edit.target.entity.aspect(edit.aspect) === undefined) {
      throw new BadRequestError(
        `Failed to update ${edit.target.urn}: entities of type ${edit.target.entity.name} have no ${edit.aspect} aspect`,
      );
    }
  }
  let pending = edits;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const latest = await latestOf(
      context,
      pending.map((edit) => ({ target: edit.target, aspects: [edit.aspect] })),
    );
    const planned: { edit: AspectEdit; proposal: ValidatedProposal }[] = [];
    for (const edit of pending) {
      const current = latest.get(edit.target.urn)?.get(edit.aspect);
      const change = edit.change(current?.value);
      if (change !== undefined) planned.push({ edit, proposal: proposalOf(context, edit, change, current) });
    }
    if (planned.length === 0) return;
    try {
      await submit(
        context,
        planned.map(({ proposal }) => proposal),
        authorization,
      );
      return;
    } catch (error) {
      const conflicted = conflictsOf(error, planned.length);
      if (conflicted === undefined) throw error;
      pending = conflicted.flatMap((index) => {
        const entry = planned[index];
        return entry === undefined ? [] : [entry.edit];
      });
    }
  }
  throw new ConflictError(
    `Other writes kept changing ${pending.map((edit) => `${edit.aspect} of ${edit.target.urn}`).join(', ')} while this mutation applied; nothing more was written. Retry it.`,
  );
}

/** Submits proposals as the caller and waits for the writer's outcome; a refusal is its typed error. */
export async function submit(
  context: GraphqlContext,
  proposals: readonly ValidatedProposal[],
  authorization: WriteAuthorization,
): Promise<void> {
  const count = (submissions.get(context) ?? 0) + 1;
  submissions.set(context, count);
  const request = context.request;
  await context.submitter.submit(proposals, {
    requestId: `${request.requestId}-${count}`,
    actor: request.actor,
    traceId: request.traceId,
    sourceIp: request.sourceIp,
    userAgent: request.userAgent,
    eventSource: request.eventSource,
    authorization,
    wait: true,
  });
}

/** The version DataHub compares `If-Version-Match` with: -1 for an aspect never written. */
function versionOf(current: LoadedAspect | undefined): string | undefined {
  if (current === undefined) return '-1';
  const version = current.systemMetadata?.['version'];
  return typeof version === 'string' && /^\d+$/.test(version) ? version : undefined;
}

function proposalOf(
  context: GraphqlContext,
  edit: AspectEdit,
  change: AspectChange,
  current: LoadedAspect | undefined,
): ValidatedProposal {
  const base = {
    entityType: edit.target.entity.name,
    entityUrn: edit.target.urn,
    aspectName: edit.aspect,
    systemMetadata: UI_SYSTEM_METADATA,
  };
  switch (change.kind) {
    case 'patch': {
      const document =
        change.arrayPrimaryKeys === undefined
          ? change.operations
          : { patch: change.operations, arrayPrimaryKeys: change.arrayPrimaryKeys, forceGenericPatch: true };
      return validateProposal(context.registry, {
        ...base,
        changeType: 'PATCH',
        aspect: { value: JSON.stringify(document), contentType: 'application/json-patch+json' },
      });
    }
    case 'value':
    case 'replace': {
      const version = change.kind === 'value' ? versionOf(current) : undefined;
      return validateProposal(context.registry, {
        ...base,
        changeType: 'UPSERT',
        aspect: { value: JSON.stringify(change.value), contentType: 'application/json' },
        ...(version === undefined ? {} : { headers: { 'If-Version-Match': version } }),
      });
    }
  }
}

/**
 * The proposals (by index) refused only because another write changed their aspect after it was read, or undefined
 * when the error is anything else (then it stands as the mutation's answer). A single proposal's refusal is its own
 * error; a batch's lists every outcome in its details.
 */
function conflictsOf(error: unknown, planned: number): number[] | undefined {
  if (!(error instanceof StrataError)) return undefined;
  if (planned === 1) return error instanceof PreconditionFailedError ? [0] : undefined;
  const outcomes = error.details?.['outcomes'];
  if (!Array.isArray(outcomes)) return undefined;
  const refused = (outcomes as { index?: unknown; status?: unknown; error?: unknown }[]).filter(
    (outcome) => outcome.status === 'REJECTED',
  );
  if (refused.length === 0) return undefined;
  const conflicted: number[] = [];
  for (const outcome of refused) {
    if (typeof outcome.index !== 'number' || typeof outcome.error !== 'string') return undefined;
    if (!outcome.error.startsWith('Expected version ')) return undefined;
    conflicted.push(outcome.index);
  }
  return conflicted;
}

/** A JSON Pointer token for a key (an URN, a field path): `~` and `/` escaped. */
export function pointerToken(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The caller's audit stamp, now. */
export function stampOf(context: GraphqlContext): { readonly time: number; readonly actor: string } {
  return { time: context.now(), actor: context.request.actor };
}

/** The objects of an aspect's array field (anything else ignored). */
export function objectsOf(value: unknown): JsonObject[] {
  return Array.isArray(value)
    ? value.filter((item): item is JsonObject => typeof item === 'object' && item !== null && !Array.isArray(item))
    : [];
}

/** What a resource argument names: an entity, and one of its dataset's fields when a sub-resource is given. */
export interface ResourceRef {
  readonly resourceUrn: string;
  readonly subResource?: string | null;
  readonly subResourceType?: string | null;
}

export interface Resource {
  readonly target: Target;
  readonly subResource: string | undefined;
  readonly subResourceType: string | undefined;
}

/** The resources of a batch argument, parsed; a null entry is a 400. */
export function resourcesOf(
  context: GraphqlContext,
  refs: readonly (ResourceRef | null)[],
  argument: string,
): Resource[] {
  return refs.map((ref, index) => {
    if (ref === null) throw new BadRequestError(`${argument}[${index}] must not be null`);
    return resourceOf(context, ref, `${argument}[${index}].resourceUrn`);
  });
}

export function resourceOf(context: GraphqlContext, ref: ResourceRef, argument = 'resourceUrn'): Resource {
  return {
    target: targetOf(context, ref.resourceUrn, argument),
    subResource: ref.subResource === null || ref.subResource === undefined ? undefined : ref.subResource,
    subResourceType: ref.subResourceType ?? undefined,
  };
}

/** The dataset field a resource names, when it names one (an empty sub-resource names none, as in DataHub). */
export function fieldOf(resource: Resource): string | undefined {
  return resource.subResource === undefined || resource.subResource === '' ? undefined : resource.subResource;
}

/**
 * Checks, as DataHub's `validateResource` does, that each resource exists and that a sub-resource it names is a field
 * of its dataset's schema; the first problem is a 400 in DataHub's words.
 */
export async function validateResources(context: GraphqlContext, resources: readonly Resource[]): Promise<void> {
  const existing = await existingOf(
    context,
    resources.map((resource) => resource.target.urn),
  );
  const withFields = resources.filter(
    (resource) => fieldOf(resource) !== undefined && resource.subResourceType !== undefined,
  );
  const schemas = await latestOf(
    context,
    withFields.map((resource) => ({ target: resource.target, aspects: ['schemaMetadata'] })),
  );
  for (const resource of resources) {
    const urn = resource.target.urn;
    if (!existing.has(urn))
      throw new BadRequestError(`Failed to update resource with urn ${urn}. Entity does not exist.`);
    const field = fieldOf(resource);
    if (field === undefined && resource.subResourceType === undefined) continue;
    if (field === undefined) {
      throw new BadRequestError(
        `Failed to update resource with urn ${urn}. SubResourceType (${resource.subResourceType ?? ''}) provided without a subResource.`,
      );
    }
    if (resource.subResourceType === undefined) {
      throw new BadRequestError(
        `Failed to updates resource with urn ${urn}. SubResource (${field}) provided without a subResourceType.`,
      );
    }
    requireField(urn, field, schemas.get(urn)?.get('schemaMetadata')?.value);
  }
}

/** Refuses a field path the dataset's schema does not have, in DataHub's words. */
export function requireField(urn: string, field: string, schema: JsonObject | undefined): void {
  if (schema === undefined)
    throw new BadRequestError(`Failed to update ${urn} & field ${field}. ${urn} has no schema.`);
  if (!objectsOf(schema['fields']).some((candidate) => candidate['fieldPath'] === field)) {
    throw new BadRequestError(
      `Failed to update ${urn} & field ${field}. Field ${field} does not exist in the datasets schema.`,
    );
  }
}
