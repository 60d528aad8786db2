import { parseUrn, type EntitySpec, type JsonObject } from '@strata/model';

/**
 * Platforms whose dataset names are paths rather than dotted names. DataHub reads this from the platform's
 * `dataPlatformInfo.datasetNameDelimiter`; these are the values its bootstrap platforms ship with.
 */
const slashDelimitedPlatforms = new Set(['hdfs', 's3', 'gcs', 'adlsGen1', 'adlsGen2', 'file', 'abs']);

/** Names of every aspect {@link defaultAspects} may create: what a decision about a new entity needs to read. */
export const defaultAspectNames = ['browsePaths', 'browsePathsV2', 'dataPlatformInstance'] as const;

/** Entity types whose key names their platform directly (`platform`), as DataHub's default platform instance reads it. */
const platformKeyed = new Set(['dataset', 'mlModel', 'mlFeatureTable', 'mlModelDeployment', 'mlModelGroup']);

/** An aspect DataHub creates on an entity's first write, besides the key. */
export interface DefaultAspect {
  readonly aspect: string;
  readonly value: JsonObject;
}

/**
 * The aspects created with a new entity (DataHub's `DefaultAspectsUtil`): `browsePathsV2` for every entity type that
 * has the aspect, `dataPlatformInstance` naming the platform where the key says it, and the older `browsePaths` where
 * DataHub derives one (datasets, charts, dashboards, pipelines and their jobs), which Rest.li's browse reads. Only
 * aspects the entity declares are produced.
 */
export function defaultAspects(entity: EntitySpec, key: JsonObject): DefaultAspect[] {
  const platform = platformOf(entity.name, key);
  const browsePath = defaultBrowsePath(entity.name, key);
  const defaults: DefaultAspect[] = [];
  if (browsePath !== undefined && entity.aspect('browsePaths')) {
    defaults.push({ aspect: 'browsePaths', value: { paths: [browsePath] } });
  }
  if (entity.aspect('browsePathsV2')) {
    defaults.push({ aspect: 'browsePathsV2', value: { path: defaultBrowsePathV2(entity.name, key) } });
  }
  if (platform !== undefined && entity.aspect('dataPlatformInstance')) {
    defaults.push({ aspect: 'dataPlatformInstance', value: { platform } });
  }
  return defaults;
}

function platformOf(entityName: string, key: JsonObject): string | undefined {
  if (platformKeyed.has(entityName)) return stringField(key, 'platform');
  const tool =
    entityName === 'chart' || entityName === 'dashboard'
      ? stringField(key, 'dashboardTool')
      : entityName === 'dataFlow'
        ? stringField(key, 'orchestrator')
        : entityName === 'dataJob'
          ? flowParts(key)?.[0]
          : undefined;
  return tool === undefined ? undefined : `urn:li:dataPlatform:${tool.toLowerCase()}`;
}

/** The parts of a data job's flow URN (`urn:li:dataFlow:(airflow,dag,prod)`): orchestrator, flow id, cluster. */
function flowParts(key: JsonObject): string[] | undefined {
  const flow = stringField(key, 'flow');
  try {
    return flow === undefined ? undefined : [...parseUrn(flow).parts];
  } catch {
    return undefined;
  }
}

/**
 * DataHub's default `browsePathsV2` path (`BrowsePathV2Utils`, containers left aside until an entity names one): a
 * dataset's name parts but the last; a data job's flow; `Default` for everything else and for a dataset whose name has
 * no parts.
 */
export function defaultBrowsePathV2(entityName: string, key: JsonObject): JsonObject[] {
  const fallback = [{ id: 'Default' }];
  if (entityName === 'dataJob') {
    const flow = stringField(key, 'flow');
    return flow === undefined ? fallback : [{ id: flow, urn: flow }];
  }
  if (entityName !== 'dataset') return fallback;
  const platformUrn = stringField(key, 'platform');
  const name = stringField(key, 'name');
  if (platformUrn === undefined || name === undefined) return fallback;
  const folders = datasetFolders(platformUrn, name);
  return folders.length === 0 ? fallback : folders.map((id) => ({ id }));
}

/** The folder parts of a dataset name: split on its platform's delimiter, the last part (the dataset itself) left out. */
function datasetFolders(platformUrn: string, name: string): string[] {
  const platform = platformUrn.slice(platformUrn.lastIndexOf(':') + 1);
  const delimiter = slashDelimitedPlatforms.has(platform) ? '/' : '.';
  return name
    .split(delimiter)
    .filter((part) => part !== '')
    .slice(0, -1);
}

/**
 * DataHub's default browse path (`BrowsePathUtils.getDefaultBrowsePath`): datasets
 * `/<origin>/<platform>[/<name parts but the last>]` lowercased; charts `/<tool>`; dashboards `/<tool>` lowercased;
 * pipelines and their jobs `/<orchestrator>/<cluster>` lowercased.
 */
export function defaultBrowsePath(entityName: string, key: JsonObject): string | undefined {
  switch (entityName) {
    case 'dataset': {
      const platformUrn = stringField(key, 'platform');
      const name = stringField(key, 'name');
      const origin = stringField(key, 'origin');
      if (platformUrn === undefined || name === undefined || origin === undefined) return undefined;
      const platform = platformUrn.slice(platformUrn.lastIndexOf(':') + 1);
      return ['', origin, platform, ...datasetFolders(platformUrn, name)].join('/').toLowerCase();
    }
    case 'chart': {
      const tool = stringField(key, 'dashboardTool');
      return tool === undefined ? undefined : `/${tool}`;
    }
    case 'dashboard': {
      const tool = stringField(key, 'dashboardTool');
      return tool === undefined ? undefined : `/${tool}`.toLowerCase();
    }
    case 'dataFlow': {
      const orchestrator = stringField(key, 'orchestrator');
      const cluster = stringField(key, 'cluster');
      return orchestrator === undefined || cluster === undefined
        ? undefined
        : `/${orchestrator}/${cluster}`.toLowerCase();
    }
    case 'dataJob': {
      const [orchestrator, , cluster] = flowParts(key) ?? [];
      return orchestrator === undefined || cluster === undefined
        ? undefined
        : `/${orchestrator}/${cluster}`.toLowerCase();
    }
    default:
      return undefined;
  }
}

function stringField(value: JsonObject, field: string): string | undefined {
  const found = value[field];
  return typeof found === 'string' ? found : undefined;
}
