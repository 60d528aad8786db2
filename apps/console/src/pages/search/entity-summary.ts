/**
 * What a list of entities shows of each (search results, the home page's recent entities, a browse level's
 * entities): its name, type, platform, a description, owners, tags, glossary terms, domain and whether it is
 * soft-deleted — read with one GraphQL fragment, {@link ENTITY_SUMMARY}, covering every type the lists meet, and turned
 * into a plain {@link EntitySummary} by {@link summaryOf}.
 */
import { simplifyFieldPath } from '../../logic/schema-fields';
import { displayNameOfUrn, entityTypeOfGraphql, entityTypeOfUrn, platformName, platformOfUrn } from '../../logic/urn';

const PLATFORM = 'platform { urn name properties { displayName } }';
/** Where the platform is optional (`DataJob.platform`), under another name: one response name, one type. */
const OPTIONAL_PLATFORM = 'optionalPlatform: platform { urn name properties { displayName } }';
const OWNERS = `ownership { owners { owner {
  ... on CorpUser { urn username properties { displayName fullName } editableProperties { displayName } }
  ... on CorpGroup { urn name properties { displayName } } } } }`;
const TAGS = 'tags { tags { tag { urn name properties { name } } } }';
const TERMS = 'glossaryTerms { terms { term { urn name properties { name } } } }';
const DOMAIN = 'domain { domain { urn properties { name } } }';
const STATUS = 'status { removed }';
const SUB_TYPES = 'subTypes { typeNames }';
const LABELS = `${OWNERS} ${TAGS} ${TERMS} ${DOMAIN}`;

/**
 * The fields of each entity type a list shows. A fragment on the `Entity` interface, so it is spread wherever an
 * entity is (`...consoleEntitySummary`) and appended to the query once.
 */
export const ENTITY_SUMMARY = `fragment consoleEntitySummary on Entity {
  urn type
  ... on Dataset { name properties { name description } editableProperties { name description } ${PLATFORM} ${STATUS} ${SUB_TYPES} ${LABELS} }
  ... on Chart { properties { name description } editableProperties { description } ${PLATFORM} ${STATUS} ${SUB_TYPES} ${LABELS} }
  ... on Dashboard { properties { name description } editableProperties { description } ${PLATFORM} ${STATUS} ${SUB_TYPES} ${LABELS} }
  ... on DataJob { properties { name description } editableProperties { description } ${OPTIONAL_PLATFORM} ${STATUS} ${SUB_TYPES} ${LABELS} }
  ... on DataFlow { properties { name description } editableProperties { description } ${PLATFORM} ${STATUS} ${SUB_TYPES} ${LABELS} }
  ... on Container { properties { name description } editableProperties { description } ${PLATFORM} ${STATUS} ${SUB_TYPES} ${LABELS} }
  ... on MLModel { name properties { optionalName: name description } editableProperties { description } ${PLATFORM} ${STATUS} ${LABELS} }
  ... on MLModelGroup { name properties { optionalName: name description } editableProperties { description } ${PLATFORM} ${STATUS} ${LABELS} }
  ... on MLFeatureTable { name properties { description } editableProperties { description } ${PLATFORM} ${STATUS} ${LABELS} }
  ... on MLFeature { name description editableProperties { description } ${STATUS} ${LABELS} }
  ... on MLPrimaryKey { name description editableProperties { description } ${STATUS} ${OWNERS} ${TAGS} ${TERMS} ${DOMAIN} }
  ... on DataProduct { properties { name description } ${LABELS} }
  ... on DataPlatformInstance { instanceId properties { optionalName: name description } ${PLATFORM} ${STATUS} ${OWNERS} ${TAGS} }
  ... on CorpUser { username properties { displayName fullName title } editableProperties { displayName title } ${TAGS} }
  ... on CorpGroup { name properties { displayName description } ${OWNERS} }
  ... on Tag { name description properties { name description } ${OWNERS} }
  ... on GlossaryTerm { name properties { name definition description } ${STATUS} ${OWNERS} ${DOMAIN} }
  ... on GlossaryNode { properties { name description } ${OWNERS} }
  ... on Domain { id properties { name description } ${OWNERS} }
  ... on DataPlatform { name properties { displayName } }
  ... on SchemaFieldEntity { fieldPath parent { urn } ${STATUS} ${TAGS} ${TERMS} }
}`;

/**
 * Just enough of an entity to name it (facet values, browse groups, breadcrumbs): a fragment on `Entity`, read with
 * {@link nameOf}.
 */
export const ENTITY_NAME = `fragment consoleEntityName on Entity {
  urn type
  ... on DataPlatform { name properties { displayName } }
  ... on DataPlatformInstance { instanceId properties { optionalName: name } }
  ... on Container { properties { name } }
  ... on Tag { name properties { name } }
  ... on GlossaryTerm { name properties { name } }
  ... on GlossaryNode { properties { name } }
  ... on Domain { properties { name } }
  ... on DataProduct { properties { name } }
  ... on CorpUser { username properties { displayName fullName } editableProperties { displayName } }
  ... on CorpGroup { name properties { displayName } }
  ... on Dataset { name properties { name } }
  ... on Chart { properties { name } }
  ... on Dashboard { properties { name } }
  ... on DataFlow { properties { name } }
  ... on DataJob { properties { name } }
}`;

/** A labelled link to another entity (an owner, tag, term, domain). */
export interface NamedRef {
  readonly urn: string;
  readonly name: string;
}

/** One entity as a list shows it. */
export interface EntitySummary {
  readonly urn: string;
  /** The entity type name (`dataset`). */
  readonly type: string;
  readonly name: string;
  /** The platform's name (`Snowflake`) and URN, when the entity has one. */
  readonly platform: NamedRef | undefined;
  /** The first sub-type (`Table`, `View`), when the entity says. */
  readonly subType: string | undefined;
  /** The description, as written (Markdown); the editable one wins. */
  readonly description: string;
  readonly owners: readonly NamedRef[];
  readonly tags: readonly NamedRef[];
  readonly terms: readonly NamedRef[];
  readonly domain: NamedRef | undefined;
  /** The entity a column belongs to (its dataset), named from its URN. */
  readonly parent: NamedRef | undefined;
  /** Soft-deleted (`status.removed`). */
  readonly removed: boolean;
}

/** The loose shape of an entity the fragment reads (each type fills part of it). */
interface RawEntity {
  readonly urn?: string;
  readonly type?: string;
  readonly name?: string | null;
  readonly username?: string | null;
  readonly instanceId?: string | null;
  readonly id?: string | null;
  readonly fieldPath?: string | null;
  readonly parent?: { readonly urn?: string } | null;
  readonly description?: string | null;
  readonly properties?: RawProperties | null;
  readonly editableProperties?: RawProperties | null;
  readonly platform?: RawEntity | null;
  readonly optionalPlatform?: RawEntity | null;
  readonly status?: { readonly removed?: boolean | null } | null;
  readonly subTypes?: { readonly typeNames?: readonly string[] | null } | null;
  readonly ownership?: { readonly owners?: readonly { readonly owner?: RawEntity | null }[] | null } | null;
  readonly tags?: { readonly tags?: readonly { readonly tag?: RawEntity | null }[] | null } | null;
  readonly glossaryTerms?: { readonly terms?: readonly { readonly term?: RawEntity | null }[] | null } | null;
  readonly domain?: { readonly domain?: RawEntity | null } | null;
}

interface RawProperties {
  readonly name?: string | null;
  /** `name` where it is optional (see the fragment). */
  readonly optionalName?: string | null;
  readonly displayName?: string | null;
  readonly fullName?: string | null;
  readonly description?: string | null;
  readonly definition?: string | null;
}

/** The best name an entity read with the fragment has: its display name, else its name, else one from its URN. */
export function nameOf(entity: unknown): string {
  const raw = (entity ?? {}) as RawEntity;
  const candidates = [
    raw.editableProperties?.displayName,
    raw.editableProperties?.name,
    raw.properties?.displayName,
    raw.properties?.name,
    raw.properties?.optionalName,
    raw.properties?.fullName,
    raw.name,
    raw.username,
    raw.instanceId,
    typeof raw.fieldPath === 'string' ? simplifyFieldPath(raw.fieldPath) : undefined,
  ];
  const found = candidates.find((candidate) => typeof candidate === 'string' && candidate.trim() !== '');
  return found ?? (raw.urn === undefined ? '' : displayNameOfUrn(raw.urn));
}

function refOf(entity: RawEntity | null | undefined): NamedRef | undefined {
  if (entity === null || entity === undefined || typeof entity.urn !== 'string') return undefined;
  return { urn: entity.urn, name: nameOf(entity) };
}

function refs(list: readonly (RawEntity | null | undefined)[] | null | undefined): NamedRef[] {
  const seen = new Set<string>();
  const out: NamedRef[] = [];
  for (const item of list ?? []) {
    const ref = refOf(item);
    if (ref === undefined || seen.has(ref.urn)) continue;
    seen.add(ref.urn);
    out.push(ref);
  }
  return out;
}

/** An entity read with {@link ENTITY_SUMMARY}, as a list shows it. */
export function summaryOf(entity: unknown): EntitySummary {
  const raw = (entity ?? {}) as RawEntity;
  const urn = raw.urn ?? '';
  const type = typeof raw.type === 'string' ? entityTypeOfGraphql(raw.type) : (entityTypeOfUrn(urn) ?? 'unknown');
  const ownPlatform = raw.platform ?? raw.optionalPlatform;
  const platformUrn = ownPlatform?.urn ?? platformOfUrn(urn);
  const platform =
    ownPlatform !== null && ownPlatform !== undefined
      ? refOf(ownPlatform)
      : platformUrn === undefined
        ? undefined
        : { urn: platformUrn, name: platformName(platformUrn) ?? platformUrn };
  const description =
    [
      raw.editableProperties?.description,
      raw.properties?.description,
      raw.properties?.definition,
      raw.description,
    ].find((text) => typeof text === 'string' && text.trim() !== '') ?? '';
  return {
    urn,
    type,
    name: nameOf(raw),
    platform,
    subType: raw.subTypes?.typeNames?.[0] ?? undefined,
    description,
    owners: refs(raw.ownership?.owners?.map((owner) => owner.owner)),
    tags: refs(raw.tags?.tags?.map((tag) => tag.tag)),
    terms: refs(raw.glossaryTerms?.terms?.map((term) => term.term)),
    domain: refOf(raw.domain?.domain),
    parent:
      typeof raw.parent?.urn === 'string' ? { urn: raw.parent.urn, name: displayNameOfUrn(raw.parent.urn) } : undefined,
    removed: raw.status?.removed === true,
  };
}

/**
 * A time a search hit carries as an extra field (`fetchExtraFields`: the field's values as JSON text, one value or a
 * list): the latest, in epoch milliseconds; undefined when the hit has none.
 */
export function extraTimeOf(
  extraProperties: readonly { readonly name: string; readonly value: string }[] | null | undefined,
  field: string,
): number | undefined {
  const property = extraProperties?.find((item) => item.name === field);
  if (property === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(property.value);
  } catch {
    return undefined;
  }
  const values: unknown[] = Array.isArray(parsed) ? (parsed as unknown[]) : [parsed];
  const times = values
    .map((value) => (typeof value === 'string' ? Number(value) : value))
    .filter((value): value is number => typeof value === 'number' && Number.isFinite(value) && value > 0);
  return times.length === 0 ? undefined : Math.max(...times);
}
