/**
 * URNs as the console shows and links them: the entity type a URN names, a readable name for it, the platform of a
 * dataset or chart, and the console path of its page. Pure functions (unit-tested in urn.spec.ts).
 */

/** The entity type of a URN (`urn:li:<type>:<key>`), or undefined when it is not one. */
export function entityTypeOfUrn(urn: string): string | undefined {
  const match = /^urn:li:([A-Za-z][A-Za-z0-9]*):/.exec(urn);
  return match?.[1];
}

/** The key of a URN: what follows `urn:li:<type>:`. */
export function keyOfUrn(urn: string): string {
  const type = entityTypeOfUrn(urn);
  return type === undefined ? urn : urn.slice(`urn:li:${type}:`.length);
}

/** The parts of a tuple key `(a,b,c)`, split at top-level commas only (parts may be URNs with tuples of their own). */
export function tupleParts(key: string): string[] {
  if (!key.startsWith('(') || !key.endsWith(')')) return [key];
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of key.slice(1, -1)) {
    if (char === '(') depth += 1;
    if (char === ')') depth -= 1;
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts;
}

/** The platform URN a dataset, chart, dashboard, flow or job URN names, if any. */
export function platformOfUrn(urn: string): string | undefined {
  const type = entityTypeOfUrn(urn);
  const parts = tupleParts(keyOfUrn(urn));
  if (type === 'dataJob') return platformOfUrn(parts[0] ?? '');
  const first = parts[0];
  if (first === undefined) return undefined;
  if (first.startsWith('urn:li:dataPlatform:')) return first;
  if (type === 'chart' || type === 'dashboard' || type === 'dataFlow') return `urn:li:dataPlatform:${first}`;
  return undefined;
}

/** The platform's name (`urn:li:dataPlatform:hive` → `hive`). */
export function platformName(platformUrn: string | undefined): string | undefined {
  return platformUrn?.replace(/^urn:li:dataPlatform:/, '');
}

/**
 * A short readable name for an entity when nothing better is known: a dataset's last path segment, a job's id, a
 * user's or tag's id, a schema field's path.
 */
export function displayNameOfUrn(urn: string): string {
  const type = entityTypeOfUrn(urn);
  const key = keyOfUrn(urn);
  const parts = tupleParts(key);
  switch (type) {
    case 'dataset': {
      const name = parts[1] ?? key;
      return name;
    }
    case 'schemaField':
      return parts[1] ?? key;
    case 'dataJob':
    case 'chart':
    case 'dashboard':
      return parts[parts.length - 1] ?? key;
    case 'dataFlow':
      return parts[1] ?? key;
    default:
      return parts.length > 1 ? (parts[parts.length - 1] ?? key) : key;
  }
}

/** The console path of an entity's page, optionally at one of its tabs. */
export function entityPath(urn: string, tab?: string): string {
  return `/entity/${encodeURIComponent(urn)}${tab === undefined ? '' : `/${encodeURIComponent(tab)}`}`;
}

/** Words for an entity type name, for headings: `dataJob` → `Data job`, `corpuser` → `User`. */
export function entityTypeLabel(type: string): string {
  const known: Record<string, string> = {
    corpuser: 'User',
    corpGroup: 'Group',
    dataJob: 'Job',
    dataFlow: 'Pipeline',
    mlModel: 'ML model',
    mlModelGroup: 'ML model group',
    mlFeature: 'ML feature',
    mlFeatureTable: 'ML feature table',
    mlPrimaryKey: 'ML primary key',
    glossaryTerm: 'Glossary term',
    glossaryNode: 'Glossary node',
    dataPlatform: 'Platform',
    dataPlatformInstance: 'Platform instance',
    dataProduct: 'Data product',
    schemaField: 'Column',
    dataHubAccessToken: 'Access token',
    test: 'Metadata test',
  };
  const label = known[type];
  if (label !== undefined) return label;
  const words = type.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * The GraphQL `EntityType` of an entity type name (`dataset` → `DATASET`, `dataJob` → `DATA_JOB`, `corpuser` →
 * `CORP_USER`), as search and browse take them.
 */
export function graphqlEntityType(type: string): string {
  const named = ENUM_OF_ENTITY[type];
  if (named !== undefined) return named;
  return type
    .replace(/^dataHub(?=[A-Z])/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase();
}

/** The entity type name of a GraphQL `EntityType` value (the inverse of {@link graphqlEntityType}). */
export function entityTypeOfGraphql(value: string): string {
  const named = Object.entries(ENUM_OF_ENTITY).find(([, enumValue]) => enumValue === value);
  if (named !== undefined) return named[0];
  return value.toLowerCase().replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

/** `EntityType` values that the camelCase → UPPER_SNAKE rule does not give (DataHub's own exceptions). */
const ENUM_OF_ENTITY: Readonly<Record<string, string>> = {
  corpuser: 'CORP_USER',
  mlModel: 'MLMODEL',
  mlModelGroup: 'MLMODEL_GROUP',
  mlFeatureTable: 'MLFEATURE_TABLE',
  mlFeature: 'MLFEATURE',
  mlPrimaryKey: 'MLPRIMARY_KEY',
  dataHubAccessToken: 'ACCESS_TOKEN',
  dataHubPolicy: 'DATAHUB_POLICY',
  dataHubRole: 'DATAHUB_ROLE',
  dataHubView: 'DATAHUB_VIEW',
  ownershipType: 'CUSTOM_OWNERSHIP_TYPE',
};
