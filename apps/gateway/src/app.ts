import { hostname } from 'node:os';
import { Agent } from 'undici';
import { TokenService } from '@strata/auth';
import {
  routeCaller,
  servicesBehind,
  type AnyRoute,
  type Authenticator,
  type RouteGuard,
  type RunnableService,
} from '@strata/http';
import { UNKNOWN_ACTOR_URN } from '@strata/model';
import { hostServices, STRATA_VERSION, type HostContext, type StrataService } from '@strata/runtime';
import type { MessageLog } from '@strata/log';
import { readGraphqlSchema } from '@strata/schemas';
import { createAuthenticator } from './auth/authenticator';
import { Authorizer } from './auth/authorizer';
import { bootstrapProposals } from './auth/bootstrap';
import { resourceFactsReader } from './auth/resource-facts';
import { assertKnownPrivileges, createRouteGuard } from './auth/route-guard';
import { resolveSecrets } from './auth/secrets';
import { SecurityView, systemContext } from './auth/security-view';
import type { GatewayConfig } from './config';
import { builtConsole } from './console';
import { createGatewayService } from './gateway-service';
import { capabilitiesOf } from './http/config-routes';
import type { ReadModel } from './ingest/proposal-submitter';

/** The settings {@link composeGateway} reads: the gateway's own, wherever it runs. */
export type GatewaySettings = Pick<
  GatewayConfig,
  | 'ASYNC_INGEST_DEFAULT'
  | 'INGEST_TIMEOUT_MS'
  | 'INGESTION_MAX_SERIALIZED_STRING_LENGTH'
  | 'INGEST_MAX_BATCH_PROPOSALS'
  | 'GATEWAY_INSTANCE_ID'
  | 'METADATA_SERVICE_AUTH_ENABLED'
  | 'DATAHUB_TOKEN_SERVICE_ISSUER'
  | 'DATAHUB_SYSTEM_CLIENT_ID'
> & {
  readonly STRATA_ROOT_PASSWORD?: string | undefined;
  readonly DATAHUB_TOKEN_SERVICE_SIGNING_KEY?: string | undefined;
  readonly DATAHUB_SYSTEM_CLIENT_SECRET?: string | undefined;
  readonly DATA_DIR: string;
};

/** The root user's password where none is configured (the standalone process only): DataHub's quickstart one. */
const DEFAULT_ROOT_PASSWORD = 'datahub';

/** The gateway, and how the process serving it authenticates and authorizes requests. */
export interface ComposedGateway {
  readonly service: StrataService;
  readonly authenticate: Authenticator;
  readonly guard: RouteGuard;
}

/** What the gateway fronts: the routes and read models of the services behind it. */
export interface GatewayPeers {
  readonly routes: readonly AnyRoute[];
  readonly readModels: readonly ReadModel[];
}

/**
 * Builds the gateway from its settings, on the process's log, in front of `peers`: the one place both the gateway alone
 * and the standalone process turn configuration into a gateway.
 */
export function composeGateway(
  context: HostContext,
  settings: GatewaySettings,
  log: MessageLog,
  peers: GatewayPeers,
): ComposedGateway {
  const { registry, serde, topics } = context.model;
  const secrets = resolveSecrets(
    {
      signingKey: settings.DATAHUB_TOKEN_SERVICE_SIGNING_KEY,
      systemClientSecret: settings.DATAHUB_SYSTEM_CLIENT_SECRET,
    },
    settings.DATA_DIR,
  );
  const tokens = new TokenService({
    signingKey: secrets.signingKey,
    issuer: settings.DATAHUB_TOKEN_SERVICE_ISSUER,
    now: () => context.scheduler.now(),
  });
  const authLogger = context.logger.child({ component: 'authentication' });
  if (settings.STRATA_ROOT_PASSWORD === undefined) {
    authLogger.warn(
      "The root user's password is the default one (DataHub's quickstart password): set STRATA_ROOT_PASSWORD before anyone else can reach this server",
    );
  }
  const internalContext = systemContext(settings.DATAHUB_SYSTEM_CLIENT_ID, secrets.systemClientSecret);
  const security = new SecurityView(routeCaller(peers.routes), internalContext);
  const authorizer = new Authorizer({
    enabled: settings.METADATA_SERVICE_AUTH_ENABLED,
    anonymousActor: UNKNOWN_ACTOR_URN,
    security,
    facts: resourceFactsReader(registry, routeCaller(peers.routes), internalContext),
  });
  const authenticate = createAuthenticator({
    tokens,
    systemClient: { id: settings.DATAHUB_SYSTEM_CLIENT_ID, secret: secrets.systemClientSecret },
    anonymousActor: UNKNOWN_ACTOR_URN,
    onRefused: (reason, path) => {
      authLogger.info({ reason, path }, 'refused a request without valid credentials');
    },
    security,
  });
  const service = createGatewayService({
    log,
    registry,
    serde,
    topics,
    ownedElsewhere: peers.routes,
    readModels: peers.readModels,
    instanceId: () => settings.GATEWAY_INSTANCE_ID ?? `${hostname()}-${context.port()}`,
    logger: context.logger.child({ component: 'gateway' }),
    scheduler: context.scheduler,
    asyncIngestByDefault: settings.ASYNC_INGEST_DEFAULT,
    outcomeTimeoutMs: settings.INGEST_TIMEOUT_MS,
    maxAspectBytes: settings.INGESTION_MAX_SERIALIZED_STRING_LENGTH,
    maxBatchProposals: settings.INGEST_MAX_BATCH_PROPOSALS,
    capabilities: capabilitiesOf(peers.routes),
    strataVersion: STRATA_VERSION,
    graphql: { sdl: readGraphqlSchema().map((file) => file.text) },
    bootstrap: bootstrapProposals(registry),
    auth: {
      authorizer,
      tokens,
      security,
      internalContext,
      rootPassword: settings.STRATA_ROOT_PASSWORD ?? DEFAULT_ROOT_PASSWORD,
    },
  });
  assertKnownPrivileges(service.routes);
  return { service, authenticate, guard: createRouteGuard(authorizer) };
}

/**
 * The gateway running alone: at start it reads the service table of every service in SERVICE_URLS (waiting for them
 * up to SERVICE_DISCOVERY_TIMEOUT_MS), forwards their routes to them, and waits for their read models.
 */
export function createGatewayApp(config: GatewayConfig): RunnableService {
  return hostServices('gateway', config, async (context) => {
    const dispatcher = await context.scope.open(
      'connections to the services',
      () => new Agent({ keepAliveTimeout: 30_000 }),
      (agent) => agent.close(),
    );
    const services = await servicesBehind(config.SERVICE_URLS, {
      discoveryTimeoutMs: config.SERVICE_DISCOVERY_TIMEOUT_MS,
      scheduler: context.scheduler,
      dispatcher,
      timeoutMs: config.FORWARD_TIMEOUT_MS,
      systemClient: { id: config.DATAHUB_SYSTEM_CLIENT_ID, secret: config.DATAHUB_SYSTEM_CLIENT_SECRET },
    });
    const log = await context.engines.openLog(context.scope, 'gateway');
    const {
      service: gateway,
      authenticate,
      guard,
    } = composeGateway(context, config, log, {
      routes: services.flatMap((service) => service.routes),
      readModels: services.flatMap(({ table }) => table.readModels),
    });
    context.logger.info(
      {
        services: services.map(({ url, table }) => ({
          service: table.service,
          url,
          readModels: table.readModels.map((model) => model.name),
        })),
      },
      'gateway routes to its services',
    );
    return {
      services: [gateway],
      documented: true,
      console: builtConsole(context.logger),
      maxBodyBytes: config.MAX_BODY_BYTES,
      authenticate,
      guard,
    };
  });
}
