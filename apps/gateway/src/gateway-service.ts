import { randomUUID } from 'node:crypto';
import { SYSTEM_ACTOR_URN, type EntityRegistry, type ValidatedProposal } from '@strata/model';
import type { EventSerde, TopicNames } from '@strata/events';
import type { MessageLog } from '@strata/log';
import { isInternalRoute, routeCaller, type AnyRoute, type RequestContext, type RouteCaller } from '@strata/http';
import type { StrataService } from '@strata/runtime';
import type { Scheduler } from '@strata/timing';
import { hashPassword, ROOT_USER, verifyPassword, type TokenService } from '@strata/auth';
import type { Authorizer } from './auth/authorizer';
import type { SecurityView } from './auth/security-view';
import { tokenRoutes } from './http/token-routes';
import { credentialsProposal, loginRoutes, type LoginRouteOptions } from './http/login-routes';
import { OutcomeListener } from './consumers/outcome-listener';
import { loginRecorder } from './auth/login-events';
import { configRoutes, type ServerCapabilities } from './http/config-routes';
import { maintenanceRoutes } from './http/maintenance-routes';
import { WriteSwitch } from './ingest/write-switch';
import { deleteRoutes } from './http/delete-routes';
import { rollbackRoutes } from './http/rollback-routes';
import { ingestRoutes } from './http/ingest-routes';
import { writeTraceRoutes } from './http/write-trace-routes';
import { openApiEntityRoutes } from './http/openapi-entity-routes';
import { ProposalSubmitter, type ReadModel } from './ingest/proposal-submitter';
import { schemaRegistryRoutes } from './schema-registry/schema-registry-routes';
import { testRoutes } from './http/test-routes';
import { usageIngestRoutes } from './http/usage-ingest-routes';
import { platformRoutes } from './http/platform-routes';
import { eventsRoutes } from './http/events-routes';
import { createRouteGuard } from './auth/route-guard';
import { graphqlRoutes } from './graphql/graphql-routes';
import { executableSchema } from './graphql/schema';
import { RESOLVERS } from './graphql/resolvers';
import { DEFAULT_GRAPHQL_LIMITS, type GraphqlLimits } from './graphql/limits';

export interface GatewayServiceOptions {
  readonly log: MessageLog;
  readonly registry: EntityRegistry;
  readonly serde: EventSerde;
  readonly topics: TopicNames;
  /** Routes the services behind the gateway own: mounted beside its own (in-process, or forwarded to them). */
  readonly ownedElsewhere: readonly AnyRoute[];
  /** The read models of those services, which a write waiting for indexing waits for. */
  readonly readModels: readonly ReadModel[];
  /**
   * This gateway instance's identity, unique among the deployment's gateways and stable across its restarts: it names
   * the consumer group the instance reads outcomes in. Read at start (it may depend on the port bound).
   */
  readonly instanceId: () => string;
  readonly logger: { warn(details: object, message: string): void; error(details: object, message: string): void };
  /** The timers of the waits for outcomes and acknowledgements. */
  readonly scheduler: Scheduler;
  readonly asyncIngestByDefault: boolean;
  readonly outcomeTimeoutMs: number;
  readonly maxAspectBytes: number;
  readonly maxBatchProposals: number;
  /** What `GET /config` says the deployment can do. */
  readonly capabilities: ServerCapabilities;
  readonly strataVersion: string;
  /** The GraphQL API's schema (SDL, read at start) and its limits; absent, the gateway serves no GraphQL. */
  readonly graphql?: { readonly sdl: readonly string[]; readonly limits?: GraphqlLimits };
  /** Proposals written at start, as the system actor, before the gateway takes requests (the root user, policies). */
  readonly bootstrap?: readonly ValidatedProposal[];
  /**
   * Authentication's parts: who may do what, the tokens, the security view and the context of the gateway's own
   * reads. Absent, nothing is checked and no token is served (a gateway in a test of something else).
   */
  readonly auth?: {
    readonly authorizer: Authorizer;
    readonly tokens: TokenService;
    readonly security: SecurityView;
    readonly internalContext: RequestContext;
    /** The root user's password, set at start when it is not already the one stored. */
    readonly rootPassword: string;
    /** Told of every login; default: recorded on `DataHubUsageEvent_v1` for the audit trail. */
    readonly onLogin?: LoginRouteOptions['onLogin'];
  };
}

/** The consumer group a gateway instance reads outcomes and acknowledgements in. */
export function outcomeGroupOf(instanceId: string): string {
  return `gateway-outcomes-${instanceId}`;
}

/**
 * The gateway: validates every write in full, publishes it as a proposal on the log, and (by default) answers once its
 * outcome arrives — and, when asked, once the read models hold it; the reads of the other services are mounted beside
 * its own routes.
 */
export function createGatewayService(options: GatewayServiceOptions): StrataService {
  let outcomes: OutcomeListener | undefined;
  const call: RouteCaller = routeCaller(options.ownedElsewhere);
  // Read with the gateway's own context, so it needs authentication configured (every real deployment has it).
  const writeSwitch =
    options.auth === undefined
      ? undefined
      : new WriteSwitch({ call, context: options.auth.internalContext, now: () => options.scheduler.now() });
  const submitter = new ProposalSubmitter({
    ...(writeSwitch === undefined ? {} : { writeSwitch }),
    log: options.log,
    serde: options.serde,
    topics: options.topics,
    outcomes: {
      expect: (...args) => started().expect(...args),
      expectIndexing: (...args) => started().expectIndexing(...args),
      cancel: (...args) => {
        started().cancel(...args);
      },
    },
    outcomeTimeoutMs: options.outcomeTimeoutMs,
    readModels: options.readModels,
    ...(options.auth === undefined
      ? {}
      : {
          authorize: (authorization, proposals) =>
            options.auth?.authorizer.authorizeWrites(authorization, proposals) ?? Promise.resolve(proposals),
        }),
  });
  const started = (): OutcomeListener => {
    if (outcomes === undefined) throw new Error('The gateway is not started');
    return outcomes;
  };
  const routes: AnyRoute[] = [
    ...ingestRoutes({
      registry: options.registry,
      submitter,
      asyncByDefault: options.asyncIngestByDefault,
      maxAspectBytes: options.maxAspectBytes,
      maxBatchProposals: options.maxBatchProposals,
      now: () => options.scheduler.now(),
    }),
    ...writeTraceRoutes({
      registry: options.registry,
      call,
      readModels: options.readModels,
      ...(options.auth === undefined ? {} : { authorizer: options.auth.authorizer }),
    }),
    ...deleteRoutes({
      registry: options.registry,
      submitter,
      call,
    }),
    ...rollbackRoutes({ registry: options.registry, submitter, call, maxAspectBytes: options.maxAspectBytes }),
    ...openApiEntityRoutes({
      registry: options.registry,
      submitter,
      call,
      maxAspectBytes: options.maxAspectBytes,
      maxBatchProposals: options.maxBatchProposals,
      ...(options.auth === undefined ? {} : { authorizer: options.auth.authorizer }),
      now: () => options.scheduler.now(),
    }),
    ...testRoutes({
      registry: options.registry,
      submitter,
      call,
    }),
    ...(options.auth === undefined
      ? []
      : tokenRoutes({
          registry: options.registry,
          submitter,
          now: () => options.scheduler.now(),
          ...options.auth,
        })),
    ...(options.auth === undefined
      ? []
      : loginRoutes({
          registry: options.registry,
          submitter,
          onLogin: loginRecorder(options.log, options.topics, () => options.scheduler.now()),
          now: () => options.scheduler.now(),
          ...options.auth,
        })),
    ...usageIngestRoutes({
      registry: options.registry,
      submitter,
      maxAspectBytes: options.maxAspectBytes,
      maxBuckets: options.maxBatchProposals,
    }),
    ...platformRoutes(options),
    ...eventsRoutes({
      ...options,
      now: () => options.scheduler.now(),
      ...(options.auth === undefined
        ? {}
        : {
            requirePrivilege: (context, privilege, message) =>
              options.auth?.authorizer.require(context, { requirement: [[privilege]], message }) ?? Promise.resolve(),
          }),
    }),
    ...schemaRegistryRoutes(options.serde, options.topics),
    ...maintenanceRoutes({ ...(writeSwitch === undefined ? {} : { writeSwitch }), logger: options.logger }),
    ...configRoutes({
      capabilities: options.capabilities,
      strataVersion: options.strataVersion,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    }),
    // What the services serve each other stays between them.
    ...options.ownedElsewhere.filter((route) => !isInternalRoute(route)),
  ];
  if (options.graphql !== undefined) {
    const everyRoute = [...routes, ...options.ownedElsewhere];
    routes.push(
      ...graphqlRoutes({
        schema: executableSchema(options.graphql.sdl, RESOLVERS),
        limits: options.graphql.limits ?? DEFAULT_GRAPHQL_LIMITS,
        logger: options.logger,
        routes: () => everyRoute,
        guard: options.auth === undefined ? undefined : createRouteGuard(options.auth.authorizer),
        internalContext: options.auth?.internalContext,
        registry: options.registry,
        authorizer: options.auth?.authorizer,
        submitter,
        now: () => options.scheduler.now(),
      }),
    );
  }
  return {
    name: 'gateway',
    routes,
    readModels: [],
    metrics: [],
    async start() {
      outcomes = new OutcomeListener({
        log: options.log,
        serde: options.serde,
        topic: options.topics.metadataChangeProposalOutcome,
        acknowledgementTopic: options.topics.metadataIndexAcknowledgement,
        groupId: outcomeGroupOf(options.instanceId()),
        scheduler: options.scheduler,
        onUndecodable: (error) => {
          options.logger.warn({ err: error }, 'skipped an undecodable outcome record');
        },
      });
      await outcomes.start();
      const bootstrap = options.bootstrap ?? [];
      if (bootstrap.length > 0) {
        const requestId = `bootstrap-${randomUUID()}`;
        await submitter.submit(bootstrap, {
          requestId,
          actor: SYSTEM_ACTOR_URN,
          traceId: requestId,
          authorization: { kind: 'system' },
          wait: true,
        });
      }
      const auth = options.auth;
      if (auth !== undefined) {
        // The root password, hashed again only when the one stored is not it (a hash costs tens of milliseconds).
        const stored = await auth.security.credentials(ROOT_USER);
        if (stored === null || !(await verifyPassword(auth.rootPassword, stored))) {
          const requestId = `bootstrap-${randomUUID()}`;
          await submitter.submit(
            [credentialsProposal(options.registry, ROOT_USER, await hashPassword(auth.rootPassword))],
            { requestId, actor: SYSTEM_ACTOR_URN, traceId: requestId, authorization: { kind: 'system' }, wait: true },
          );
        }
      }
    },
    async stop() {
      await outcomes?.stop();
    },
  };
}
