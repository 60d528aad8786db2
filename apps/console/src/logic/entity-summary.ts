/**
 * What the entity page's header and overview show of an entity, from whichever read answered it: the GraphQL entity
 * (the types the API serves with fields of their own), or the entity's latest aspects from REST (every other type: a
 * generic page driven by the aspects it holds). Pure (unit-tested in entity-summary.spec.ts).
 */
import { displayNameOfUrn, entityTypeLabel, entityTypeOfUrn, platformName } from './urn';

/** A related entity as the page links it. */
export interface EntityLabel {
  readonly urn: string;
  readonly name?: string;
}

/** An owner as the owners editor takes it. */
export interface OwnerLabel extends EntityLabel {
  readonly type?: string;
  readonly ownershipTypeUrn?: string;
  /** The ownership type's name (a custom one), else the type's words. */
  readonly typeLabel?: string;
}

export interface LinkLabel {
  readonly url: string;
  readonly label?: string;
  readonly author?: string;
  readonly time?: number;
}

export interface DeprecationState {
  readonly deprecated: boolean;
  readonly note?: string;
  readonly decommissionTime?: number;
}

/** A fact of a type's own (a chart's type, a user's email, a job's pipeline), a value or a link. */
export interface EntityFact {
  readonly label: string;
  readonly value?: string;
  readonly entity?: EntityLabel;
  readonly url?: string;
  /** A time, epoch milliseconds. */
  readonly time?: number;
}

/** DataHub's `EntityPrivileges`, as far as the page uses them. */
export const PRIVILEGE_NAMES = [
  'canEditDescription',
  'canEditTags',
  'canEditGlossaryTerms',
  'canEditOwners',
  'canEditLinks',
  'canEditDomains',
  'canEditDeprecation',
  'canManageEntity',
  'canEditSchemaFieldDescription',
  'canEditSchemaFieldTags',
  'canEditSchemaFieldGlossaryTerms',
] as const;
export type PrivilegeName = (typeof PRIVILEGE_NAMES)[number];
export type EntityPrivileges = Readonly<Partial<Record<PrivilegeName, boolean>>>;

export interface EntitySummary {
  readonly urn: string;
  readonly entityType: string;
  readonly typeLabel: string;
  readonly name: string;
  /** False when Strata holds nothing for the URN (undefined when the read does not say). */
  readonly exists?: boolean;
  readonly subTypes: readonly string[];
  readonly platform?: EntityLabel;
  /** From the root down: the containers (or browse path, or glossary nodes) above the entity. */
  readonly path: readonly { readonly name: string; readonly urn?: string }[];
  readonly description?: string;
  readonly externalUrl?: string;
  readonly owners: readonly OwnerLabel[];
  readonly tags: readonly EntityLabel[];
  readonly terms: readonly EntityLabel[];
  readonly domain: EntityLabel | null;
  readonly deprecation: DeprecationState | null;
  readonly removed: boolean;
  readonly links: readonly LinkLabel[];
  readonly customProperties: readonly { readonly key: string; readonly value: string }[];
  readonly facts: readonly EntityFact[];
  readonly privileges: EntityPrivileges;
  /** The aspects it holds, for a page read from its aspects (not GraphQL). */
  readonly aspectNames?: readonly string[];
  /** Which of the header's parts the entity type has at all (an editor is shown only for those). */
  readonly has: Readonly<Record<'owners' | 'tags' | 'terms' | 'domain' | 'deprecation' | 'links' | 'status', boolean>>;
}

type Json = Record<string, unknown>;

function record(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function number(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function path(value: unknown, ...keys: string[]): unknown {
  let current = value;
  for (const key of keys) current = record(current)?.[key];
  return current;
}

/** The readable name of an entity as GraphQL answers it (any type), falling back to its URN's. */
export function nameOfGraphqlEntity(entity: unknown): string {
  const value = record(entity) ?? {};
  const urn = text(value['urn']) ?? '';
  return (
    text(path(value, 'editableProperties', 'displayName')) ??
    text(path(value, 'properties', 'displayName')) ??
    text(path(value, 'editableProperties', 'name')) ??
    text(path(value, 'properties', 'name')) ??
    text(path(value, 'info', 'title')) ??
    text(value['name']) ??
    text(value['username']) ??
    text(value['fieldPath']) ??
    displayNameOfUrn(urn)
  );
}

/** A related entity of a GraphQL answer as a label (undefined when it has no URN). */
export function labelOf(entity: unknown): EntityLabel | undefined {
  const urn = text(record(entity)?.['urn']);
  return urn === undefined ? undefined : { urn, name: nameOfGraphqlEntity(entity) };
}

/** Words for an ownership type (`TECHNICAL_OWNER` → `Technical owner`). */
export function ownershipTypeWords(type: string | undefined): string | undefined {
  if (type === undefined || type === 'CUSTOM' || type === 'NONE') return undefined;
  const words = type.toLowerCase().replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function customPropertiesOf(value: unknown): { key: string; value: string }[] {
  if (Array.isArray(value)) {
    return value.flatMap((entry) => {
      const key = text(record(entry)?.['key']);
      return key === undefined ? [] : [{ key, value: scalarText(record(entry)?.['value']) }];
    });
  }
  const map = record(value);
  return map === undefined ? [] : Object.entries(map).map(([key, item]) => ({ key, value: scalarText(item) }));
}

/** A property's value as text (a structure as JSON). */
function scalarText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function privilegesOf(value: unknown): EntityPrivileges {
  const given = record(value);
  if (given === undefined) return {};
  return Object.fromEntries(
    PRIVILEGE_NAMES.filter((name) => typeof given[name] === 'boolean').map((name) => [name, given[name]]),
  );
}

/** The fields each GraphQL type answers for the header's parts. */
const HAS_BY_TYPE: Readonly<Record<string, readonly (keyof EntitySummary['has'])[]>> = {
  Dataset: ['owners', 'tags', 'terms', 'domain', 'deprecation', 'links', 'status'],
  Chart: ['owners', 'tags', 'terms', 'domain', 'deprecation', 'links', 'status'],
  Dashboard: ['owners', 'tags', 'terms', 'domain', 'deprecation', 'links', 'status'],
  DataFlow: ['owners', 'tags', 'terms', 'domain', 'deprecation', 'links', 'status'],
  DataJob: ['owners', 'tags', 'terms', 'domain', 'deprecation', 'links', 'status'],
  Container: ['owners', 'tags', 'terms', 'domain', 'deprecation', 'links', 'status'],
  CorpUser: ['tags'],
  CorpGroup: ['owners'],
  Tag: ['owners'],
  GlossaryTerm: ['owners', 'domain', 'deprecation', 'links', 'status'],
  GlossaryNode: ['owners', 'links'],
  Domain: ['owners', 'links'],
  DataProduct: ['owners', 'tags', 'terms', 'domain', 'links'],
  DataPlatform: [],
  MLModel: ['owners', 'tags', 'terms', 'domain', 'deprecation', 'links', 'status'],
  MLModelGroup: ['owners', 'tags', 'terms', 'domain', 'deprecation', 'links', 'status'],
  MLFeature: ['owners', 'tags', 'terms', 'domain', 'deprecation', 'links', 'status'],
  MLFeatureTable: ['owners', 'tags', 'terms', 'domain', 'deprecation', 'links', 'status'],
  MLPrimaryKey: ['owners', 'tags', 'terms', 'domain', 'deprecation', 'links', 'status'],
};

function hasOf(parts: readonly (keyof EntitySummary['has'])[]): EntitySummary['has'] {
  const all = ['owners', 'tags', 'terms', 'domain', 'deprecation', 'links', 'status'] as const;
  return Object.fromEntries(all.map((part) => [part, parts.includes(part)])) as EntitySummary['has'];
}

/** The page's view of an entity GraphQL answered (`graphqlType` is the object type the query asked for). */
export function summaryFromGraphql(urn: string, graphqlType: string, entity: unknown): EntitySummary {
  const value = record(entity) ?? {};
  const entityType = entityTypeOfUrn(urn) ?? 'entity';
  const properties = record(value['properties']) ?? record(value['info']) ?? {};
  const editable = record(value['editableProperties']) ?? {};
  const owners = list(path(value, 'ownership', 'owners')).flatMap((item): OwnerLabel[] => {
    const owner = labelOf(record(item)?.['owner']);
    if (owner === undefined) return [];
    const type = text(record(item)?.['type']);
    const ownershipType = record(record(item)?.['ownershipType']);
    const ownershipTypeUrn = text(ownershipType?.['urn']);
    const typeLabel = text(path(ownershipType, 'info', 'name')) ?? ownershipTypeWords(type);
    return [
      {
        ...owner,
        ...(type === undefined ? {} : { type }),
        ...(ownershipTypeUrn === undefined ? {} : { ownershipTypeUrn }),
        ...(typeLabel === undefined ? {} : { typeLabel }),
      },
    ];
  });
  const tags = list(path(value, 'globalTags', 'tags')).flatMap((item) => {
    const label = labelOf(record(item)?.['tag']);
    return label === undefined ? [] : [label];
  });
  const terms = list(path(value, 'glossaryTerms', 'terms')).flatMap((item) => {
    const label = labelOf(record(item)?.['term']);
    return label === undefined ? [] : [label];
  });
  const deprecationValue = record(value['deprecation']);
  const links = list(path(value, 'institutionalMemory', 'elements')).flatMap((item): LinkLabel[] => {
    const element = record(item);
    const url = text(element?.['url']);
    if (url === undefined) return [];
    const label = text(element?.['label']) ?? text(element?.['description']);
    const author = text(path(element, 'created', 'actor'));
    const time = number(path(element, 'created', 'time'));
    return [
      {
        url,
        ...(label === undefined ? {} : { label }),
        ...(author === undefined ? {} : { author }),
        ...(time === undefined || time <= 0 ? {} : { time }),
      },
    ];
  });
  const description =
    text(editable['description']) ??
    text(properties['description']) ??
    text(properties['definition']) ??
    text(value['description']) ??
    text(path(value, 'editableInfo', 'aboutMe'));
  const externalUrl = text(properties['externalUrl']) ?? text(properties['sourceUrl']);
  const platform = labelOf(value['platform']) ?? labelOf(value['jobPlatform']);
  const domainLabel = labelOf(path(value, 'domain', 'domain'));
  const summary: EntitySummary = {
    urn,
    entityType,
    typeLabel: entityTypeLabel(entityType),
    name: nameOfGraphqlEntity({ ...value, urn }),
    ...(typeof value['exists'] === 'boolean' ? { exists: value['exists'] } : {}),
    subTypes: list(path(value, 'subTypes', 'typeNames')).flatMap((name) => (typeof name === 'string' ? [name] : [])),
    ...(platform === undefined
      ? {}
      : { platform: { urn: platform.urn, name: platformLabel(value['platform'] ?? value['jobPlatform']) } }),
    path: pathOf(value),
    ...(description === undefined ? {} : { description }),
    ...(externalUrl === undefined ? {} : { externalUrl }),
    owners,
    tags,
    terms,
    domain: domainLabel ?? null,
    deprecation:
      deprecationValue === undefined
        ? null
        : {
            deprecated: deprecationValue['deprecated'] === true,
            ...(text(deprecationValue['note']) === undefined ? {} : { note: text(deprecationValue['note']) as string }),
            ...(number(deprecationValue['decommissionTime']) === undefined
              ? {}
              : { decommissionTime: number(deprecationValue['decommissionTime']) as number }),
          },
    removed: path(value, 'status', 'removed') === true,
    links,
    customProperties: customPropertiesOf(properties['customProperties']),
    facts: factsOf(graphqlType, value),
    privileges: privilegesOf(value['privileges']),
    has: hasOf(HAS_BY_TYPE[graphqlType] ?? []),
  };
  return summary;
}

function platformLabel(platform: unknown): string {
  const value = record(platform) ?? {};
  return (
    text(path(value, 'properties', 'displayName')) ?? text(value['name']) ?? platformName(text(value['urn'])) ?? ''
  );
}

/** Containers above (root first), else glossary nodes above, else the browse path. */
function pathOf(value: Json): { name: string; urn?: string }[] {
  const containers = list(path(value, 'parentContainers', 'containers'));
  if (containers.length > 0) {
    return containers
      .flatMap((container) => {
        const label = labelOf(container);
        return label === undefined ? [] : [{ urn: label.urn, name: label.name ?? label.urn }];
      })
      .reverse();
  }
  const nodes = list(path(value, 'parentNodes', 'nodes'));
  if (nodes.length > 0) {
    return nodes
      .flatMap((node) => {
        const label = labelOf(node);
        return label === undefined ? [] : [{ urn: label.urn, name: label.name ?? label.urn }];
      })
      .reverse();
  }
  return list(path(value, 'browsePathV2', 'path')).flatMap((entry) => {
    const item = record(entry);
    const label = labelOf(item?.['entity']);
    const name = text(item?.['name']);
    if (label !== undefined) return [{ urn: label.urn, name: label.name ?? name ?? label.urn }];
    return name === undefined ? [] : [{ name }];
  });
}

/** The facts of a type's own. */
function factsOf(graphqlType: string, value: Json): EntityFact[] {
  const properties = record(value['properties']) ?? {};
  const editable = record(value['editableProperties']) ?? {};
  const facts: EntityFact[] = [];
  const add = (label: string, item: unknown) => {
    if (typeof item === 'string' && item !== '') facts.push({ label, value: item });
    else if (typeof item === 'number') facts.push({ label, value: item.toLocaleString('en-US') });
    else if (typeof item === 'boolean') facts.push({ label, value: item ? 'Yes' : 'No' });
  };
  const addEntity = (label: string, item: unknown) => {
    const entity = labelOf(item);
    if (entity !== undefined) facts.push({ label, entity });
  };
  switch (graphqlType) {
    case 'Dataset':
      add('Qualified name', properties['qualifiedName']);
      add('Environment', value['origin']);
      break;
    case 'Chart':
      add('Chart type', properties['type']);
      add('Access', properties['access']);
      break;
    case 'Dashboard':
      add('Access', properties['access']);
      break;
    case 'DataFlow':
      add('Project', properties['project']);
      add('Cluster', value['cluster']);
      break;
    case 'DataJob':
      addEntity('Pipeline', value['dataFlow']);
      break;
    case 'Container':
      add('Qualified name', properties['qualifiedName']);
      break;
    case 'CorpUser':
      add('Username', value['username']);
      add('Title', text(editable['title']) ?? properties['title']);
      add('Email', text(editable['email']) ?? properties['email']);
      add('Department', properties['departmentName']);
      addEntity('Manager', properties['manager']);
      add('Slack', editable['slack']);
      add('Phone', editable['phone']);
      add('Teams', list(editable['teams']).join(', '));
      add('Skills', list(editable['skills']).join(', '));
      add('Status', value['userStatus']);
      add('Active', properties['active']);
      break;
    case 'CorpGroup':
      add('Email', text(editable['email']) ?? properties['email']);
      add('Slack', text(editable['slack']) ?? properties['slack']);
      add('Origin', path(value, 'origin', 'externalType') ?? path(value, 'origin', 'type'));
      break;
    case 'Tag':
      add('Colour', properties['colorHex']);
      break;
    case 'GlossaryTerm':
      add('Hierarchical name', value['hierarchicalName']);
      add('Source', properties['termSource']);
      add('Source reference', properties['sourceRef']);
      break;
    case 'Domain':
      add('Id', value['id']);
      break;
    case 'DataProduct':
      add('Assets', properties['numAssets']);
      break;
    case 'DataPlatform':
      add('Platform type', properties['type']);
      add('Name delimiter', properties['datasetNameDelimiter']);
      break;
    case 'MLModel':
      add('Model type', properties['type']);
      add('Version', properties['version']);
      break;
    case 'MLFeature':
    case 'MLPrimaryKey':
      add('Namespace', value['featureNamespace']);
      add('Data type', properties['dataType']);
      break;
    default:
      break;
  }
  const modified = number(path(properties, 'lastModified', 'time'));
  if (modified !== undefined && modified > 0) facts.push({ label: 'Last modified', time: modified });
  const ingested = number(value['lastIngested']);
  if (ingested !== undefined && ingested > 0) facts.push({ label: 'Last ingested', time: ingested });
  return facts;
}

/** An aspect of a REST read (`GET /entitiesV2/{urn}`): its value. */
export interface RestAspect {
  readonly value?: unknown;
  /** Absent from the key aspect REST derives from the URN of an entity never written. */
  readonly systemMetadata?: unknown;
}

/**
 * The page's view of an entity of a type GraphQL does not detail, from its latest aspects: the well-known aspects
 * (ownership, tags, terms, domains, status, deprecation, links) where it holds them, and the name, description and
 * custom properties of its `…Properties` / `…Info` aspect. Nothing is editable from here.
 */
export function summaryFromAspects(
  urn: string,
  aspects: Readonly<Record<string, RestAspect | undefined>>,
): EntitySummary {
  const entityType = entityTypeOfUrn(urn) ?? 'entity';
  const valueOf = (name: string) => record(aspects[name]?.value);
  const propertiesName = Object.keys(aspects).find(
    (name) => /(Properties|Info)$/.test(name) && !/^editable/i.test(name),
  );
  const properties = propertiesName === undefined ? {} : (valueOf(propertiesName) ?? {});
  const editableName = Object.keys(aspects).find((name) => /^editable.*Properties$/.test(name));
  const editable = editableName === undefined ? {} : (valueOf(editableName) ?? {});
  const ownership = valueOf('ownership');
  const tags = valueOf('globalTags');
  const terms = valueOf('glossaryTerms');
  const domains = valueOf('domains');
  const status = valueOf('status');
  const deprecation = valueOf('deprecation');
  const memory = valueOf('institutionalMemory');
  const description =
    text(editable['description']) ?? text(properties['description']) ?? text(properties['definition']);
  const externalUrl = text(properties['externalUrl']);
  const firstDomain = text(list(domains?.['domains'])[0]);
  return {
    urn,
    entityType,
    typeLabel: entityTypeLabel(entityType),
    name:
      text(properties['displayName']) ?? text(properties['name']) ?? text(properties['title']) ?? displayNameOfUrn(urn),
    exists: Object.values(aspects).some((aspect) => aspect?.systemMetadata !== undefined),
    aspectNames: Object.keys(aspects).filter((name) => aspects[name] !== undefined),
    subTypes: list(valueOf('subTypes')?.['typeNames']).flatMap((name) => (typeof name === 'string' ? [name] : [])),
    path: [],
    ...(description === undefined ? {} : { description }),
    ...(externalUrl === undefined ? {} : { externalUrl }),
    owners: list(ownership?.['owners']).flatMap((item): OwnerLabel[] => {
      const owner = text(record(item)?.['owner']);
      if (owner === undefined) return [];
      const type = text(record(item)?.['type']);
      const typeLabel = ownershipTypeWords(type);
      const typeUrn = text(record(item)?.['typeUrn']);
      return [
        {
          urn: owner,
          ...(type === undefined ? {} : { type }),
          ...(typeUrn === undefined ? {} : { ownershipTypeUrn: typeUrn }),
          ...(typeLabel === undefined ? {} : { typeLabel }),
        },
      ];
    }),
    tags: list(tags?.['tags']).flatMap((item) => {
      const tag = text(record(item)?.['tag']);
      return tag === undefined ? [] : [{ urn: tag }];
    }),
    terms: list(terms?.['terms']).flatMap((item) => {
      const term = text(record(item)?.['urn']);
      return term === undefined ? [] : [{ urn: term }];
    }),
    domain: firstDomain === undefined ? null : { urn: firstDomain },
    deprecation:
      deprecation === undefined
        ? null
        : {
            deprecated: deprecation['deprecated'] === true,
            ...(text(deprecation['note']) === undefined ? {} : { note: text(deprecation['note']) as string }),
            ...(number(deprecation['decommissionTime']) === undefined
              ? {}
              : { decommissionTime: number(deprecation['decommissionTime']) as number }),
          },
    removed: status?.['removed'] === true,
    links: list(memory?.['elements']).flatMap((item): LinkLabel[] => {
      const url = text(record(item)?.['url']);
      const label = text(record(item)?.['description']);
      return url === undefined ? [] : [{ url, ...(label === undefined ? {} : { label }) }];
    }),
    customProperties: customPropertiesOf(properties['customProperties']),
    facts: [],
    privileges: {},
    has: hasOf([
      ...(ownership === undefined ? [] : (['owners'] as const)),
      ...(tags === undefined ? [] : (['tags'] as const)),
      ...(terms === undefined ? [] : (['terms'] as const)),
      ...(domains === undefined ? [] : (['domain'] as const)),
      ...(deprecation === undefined ? [] : (['deprecation'] as const)),
      ...(memory === undefined ? [] : (['links'] as const)),
      ...(status === undefined ? [] : (['status'] as const)),
    ]),
  };
}
