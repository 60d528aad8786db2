import type { EntitySpec, JsonObject } from '@strata/model';

/**
 * Platforms whose dataset names are paths rather than dotted names. DataHub reads this from the platform's
 * `dataPlatformInfo.datasetNameDelimiter`; these are the values its bootstrap platforms ship with.
 */
const slashDelimitedPlatforms = new Set(['hdfs', 's3', 'gcs', 'adlsGen1', 'adlsGen2', 'file', 'abs']);

/** Names of every aspect {@link defaultAspects} may create: what a decision about a new entity needs to read. */
export const defaultAspectNames = ['browsePaths', 'dataPlatformInstance'] as const;

/** An aspect DataHub creates on an entity's first write, besides the key. */
export interface DefaultAspect {
  readonly aspect: string;
  readonly value: JsonObject;
}

/**
 * The aspects created with a new entity (DataHub's `DefaultAspectsUtil`): `browsePaths` for datasets, charts and
 * dashboards, and `dataPlatformInstance` naming the platform. Only aspects the entity declares are produced.
 */
export function defaultAspects(entity: EntitySpec, key: JsonObject): DefaultAspect[] {
  const platform = platformOf(entity.name, key);
  const browsePath = defaultBrowsePath(entity.name, key);
  const defaults: DefaultAspect[] = [];
  if (browsePath !== undefined && entity.aspect('browsePaths')) {
    defaults.push({ aspect: 'browsePaths', value: { paths: [browsePath] } });
  }
  if (platform !== undefined && entity.aspect('dataPlatformInstance')) {
    defaults.push({ aspect: 'dataPlatformInstance', value: { platform } });
  }
  return defaults;
}

function platformOf(entityName: string, key: JsonObject): string | undefined {
  if (entityName === 'dataset') return stringField(key, 'platform');
  if (entityName === 'chart' || entityName === 'dashboard') {
    const tool = stringField(key, 'dashboardTool');
    return tool === undefined ? undefined : `urn:li:dataPlatform:${tool}`;
  }
  return undefined;
}

/**
 * DataHub's current default browse path (`BrowsePathUtils.getDefaultBrowsePath`): datasets
 * `/<origin>/<platform>[/<name parts but the last>]` lowercased; charts `/<tool>`; dashboards `/<tool>` lowercased.
 */
export function defaultBrowsePath(entityName: string, key: JsonObject): string | undefined {
  switch (entityName) {
    case 'dataset': {
      const platformUrn = stringField(key, 'platform');
      const name = stringField(key, 'name');
      const origin = stringField(key, 'origin');
      if (platformUrn === undefined || name === undefined || origin === undefined) return undefined;
      const platform = platformUrn.slice(platformUrn.lastIndexOf(':') + 1);
      const delimiter = slashDelimitedPlatforms.has(platform) ? '/' : '.';
      const folders = name
        .split(delimiter)
        .filter((part) => part !== '')
        .slice(0, -1);
      return ['', origin, platform, ...folders].join('/').toLowerCase();
    }
    case 'chart': {
      const tool = stringField(key, 'dashboardTool');
      return tool === undefined ? undefined : `/${tool}`;
    }
    case 'dashboard': {
      const tool = stringField(key, 'dashboardTool');
      return tool === undefined ? undefined : `/${tool}`.toLowerCase();
    }
    default:
      return undefined;
  }
}

function stringField(value: JsonObject, field: string): string | undefined {
  const found = value[field];
  return typeof found === 'string' ? found : undefined;
}
