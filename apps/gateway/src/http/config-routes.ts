import { z } from 'zod';
import { defineRoute, type Route } from '@strata/http';
import { UNKNOWN_ACTOR_URN } from '@strata/model';

/**
 * What this deployment can do, as `GET /config` tells DataHub's clients. Each flag is true only once the capability
 * works end to end; clients switch behaviour on them (the ingestion sink uses PATCH only when `patchCapable`, stateful
 * ingestion needs timeseries reads).
 */
export interface ServerCapabilities {
  readonly patchCapable: boolean;
  readonly statefulIngestionCapable: boolean;
  /** Multi-hop lineage queries over the graph. */
  readonly supportsImpactAnalysis: boolean;
}

/** What every Strata deployment can do today. */
export const STRATA_CAPABILITIES: ServerCapabilities = Object.freeze({
  patchCapable: true,
  // Stateful ingestion reads its checkpoints with getTimeseriesAspectValues: true where a service behind the gateway
  // serves it (see `capabilitiesOf`).
  statefulIngestionCapable: true,
  supportsImpactAnalysis: false,
});

export interface ConfigRouteOptions {
  readonly capabilities: ServerCapabilities;
  /** Strata's own version (its package version). */
  readonly strataVersion: string;
  /** The time zone of the process, as DataHub reports its JVM's. */
  readonly timeZone: string;
}

/**
 * The DataHub version whose client-visible REST behaviour Strata offers: the newest release at which DataHub's clients
 * switch on something Strata serves completely. From 1.0.1 the Python SDK writes through the OpenAPI v3 entity API
 * and traces its writes (`POST /openapi/v1/trace/write/{traceId}`); from 1.7.0 ingestion sends the `status` it adds
 * as a JSON Patch. `docs/http-interface.md` ("Server configuration") lists the thresholds; the e2e suite pins them.
 */
export const COMPATIBLE_DATAHUB_VERSION = 'v1.7.0';

/**
 * `GET /config`: the server description DataHub's clients read before anything else (the `datahub-rest` sink refuses
 * a server whose `noCode` is not the string `"true"`). No authentication, as in DataHub; `?verbose=true` adds who the
 * caller is.
 */
export function configRoutes(options: ConfigRouteOptions): Route[] {
  const body = Object.freeze({
    noCode: 'true',
    // Version retention policies (DataHub's `retention`) are not offered: every version is kept.
    retention: 'false',
    statefulIngestionCapable: options.capabilities.statefulIngestionCapable,
    patchCapable: options.capabilities.patchCapable,
    supportsImpactAnalysis: options.capabilities.supportsImpactAnalysis,
    timeZone: options.timeZone,
    versions: {
      'acryldata/datahub': { version: COMPATIBLE_DATAHUB_VERSION, commit: 'strata' },
      strata: { version: options.strataVersion },
    },
    telemetry: { enabledCli: false, enabledIngestion: false },
    managedIngestion: { enabled: false },
    datahub: { serverType: 'prod', serverEnv: 'core' },
    datasetUrnNameCasing: false,
    models: {},
  });
  return [
    defineRoute({
      method: 'GET',
      resource: '/config',
      family: 'restli',
      access: { kind: 'open' },
      summary: "The server's description and capabilities, as DataHub's clients read it before their first write.",
      query: z.object({ verbose: z.enum(['true', 'false']).optional() }).loose(),
      handle: ({ query, context }) =>
        Promise.resolve({
          body: query.verbose === 'true' ? { ...body, userType: userTypeOf(context.actor) } : body,
        }),
    }),
  ];
}

/** DataHub's progressive disclosure: `anonymous` for a caller nobody authenticated, `user` otherwise. */
function userTypeOf(actor: string): 'anonymous' | 'user' {
  return actor === UNKNOWN_ACTOR_URN ? 'anonymous' : 'user';
}

/**
 * What this deployment can do: {@link STRATA_CAPABILITIES}, less stateful ingestion when no service behind the gateway
 * serves timeseries reads (a deployment that leaves the timeseries indexer out).
 */
export function capabilitiesOf(
  routes: readonly { resource: string; action: string | undefined }[],
): ServerCapabilities {
  const timeseriesReads = routes.some(
    (route) => route.resource === '/aspects' && route.action === 'getTimeseriesAspectValues',
  );
  return {
    ...STRATA_CAPABILITIES,
    statefulIngestionCapable: STRATA_CAPABILITIES.statefulIngestionCapable && timeseriesReads,
  };
}
