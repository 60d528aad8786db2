import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import { startServiceProcess, type ServiceProcess, type ServiceProcessOptions } from './standalone-process';

/** The ways Strata is deployed, each started the way a user starts it and driven over HTTP only. */
export type DeploymentName = 'standalone' | 'standalone-kafka' | 'distributed';

export const deploymentNames: readonly DeploymentName[] = ['standalone', 'standalone-kafka', 'distributed'];

export interface DeploymentOptions {
  /** Kafka bootstrap servers, for the deployments on Kafka. */
  readonly kafkaBrokers?: readonly string[];
  /** Data directory; default a fresh temporary one. Pass the same one (and namespace) to start again on the same data. */
  readonly dataDir?: string;
  /** Suffix of this deployment's topics and consumer groups, isolating it on a shared broker; default random. */
  readonly namespace?: string;
  /** Extra environment for every process. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface RunningDeployment {
  readonly name: DeploymentName;
  /** The public interface (the gateway, or the standalone process). */
  readonly baseUrl: string;
  readonly dataDir: string;
  readonly namespace: string;
  /** The key its access tokens are signed with (configured, or the one the standalone process made and kept). */
  readonly signingKey: string;
  /** The system client's secret, likewise (its id is DataHub's `__datahub_system` unless configured). */
  readonly systemClientSecret: string;
  /** The root user's password: configured, or the standalone process's default. */
  readonly rootPassword: string;
  /**
   * The processes, by service name: `strata`, or `gateway`, `metadata-writer`, `search-indexer`, `audit`,
   * `timeseries-indexer` and `operations`.
   */
  readonly processes: Readonly<Record<string, ServiceProcess>>;
  /** Starts a service again, after it was killed or stopped: same environment, same port. */
  restart(service: string): Promise<ServiceProcess>;
  /** Stops every process (SIGTERM), in reverse start order. */
  stop(): Promise<void>;
  /** Removes the data directory if the harness created it. */
  cleanUp(): void;
}

/**
 * Environment that isolates a deployment on a shared broker: its own topics and its own writer and indexer groups
 * (what {@link startDeployment} gives its processes; for tests that start more processes into a deployment).
 */
export function kafkaEnvironment(brokers: readonly string[] | undefined, namespace: string): Record<string, string> {
  if (!brokers || brokers.length === 0) throw new Error('This deployment needs kafkaBrokers (startKafkaTestBroker)');
  return {
    KAFKA_BROKERS: brokers.join(','),
    KAFKA_SESSION_TIMEOUT_MS: '6000',
    KAFKA_FETCH_MAX_WAIT_MS: '100',
    METADATA_CHANGE_PROPOSAL_TOPIC_NAME: `MetadataChangeProposal_v1.${namespace}`,
    FAILED_METADATA_CHANGE_PROPOSAL_TOPIC_NAME: `FailedMetadataChangeProposal_v1.${namespace}`,
    METADATA_CHANGE_LOG_VERSIONED_TOPIC_NAME: `MetadataChangeLog_Versioned_v1.${namespace}`,
    METADATA_CHANGE_LOG_TIMESERIES_TOPIC_NAME: `MetadataChangeLog_Timeseries_v1.${namespace}`,
    METADATA_CHANGE_PROPOSAL_OUTCOME_TOPIC_NAME: `MetadataChangeProposalOutcome_v1.${namespace}`,
    METADATA_INDEX_ACKNOWLEDGEMENT_TOPIC_NAME: `MetadataIndexAcknowledgement_v1.${namespace}`,
    DATAHUB_USAGE_EVENT_NAME: `DataHubUsageEvent_v1.${namespace}`,
    PLATFORM_EVENT_TOPIC_NAME: `PlatformEvent_v1.${namespace}`,
    WRITER_GROUP_ID: `metadata-writer.${namespace}`,
    SEARCH_INDEXER_GROUP_ID: `search-indexer.${namespace}`,
    AUDIT_GROUP_ID: `audit.${namespace}`,
    TIMESERIES_INDEXER_GROUP_ID: `timeseries-indexer.${namespace}`,
    METADATA_TESTS_GROUP_ID: `metadata-tests.${namespace}`,
  };
}

/**
 * Secrets for a gateway run alone (which requires them), fresh and random, as environment variables; give every
 * gateway of one deployment the same ones (a deployment's are in its `signingKey` and `systemClientSecret`).
 */
export function gatewaySecrets(
  signingKey = randomBytes(32).toString('base64url'),
  systemClientSecret = randomBytes(24).toString('base64url'),
  rootPassword = randomBytes(12).toString('base64url'),
): Record<string, string> {
  return {
    DATAHUB_TOKEN_SERVICE_SIGNING_KEY: signingKey,
    DATAHUB_SYSTEM_CLIENT_SECRET: systemClientSecret,
    STRATA_ROOT_PASSWORD: rootPassword,
  };
}

/**
 * Waits for every start of a stage, then rejects with the first failure: so that the siblings of a process that failed
 * to start are started (and then stopped with the rest), never left running unknown.
 */
async function together<T extends readonly unknown[]>(starts: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(starts);
  const failed = settled.find((result) => result.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/** Ports free on loopback now (each bound, read and released): for processes that must know each other's in advance. */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Server>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => {
            resolve(server);
          });
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/** Starts a deployment of Strata from the built entry points. */
export async function startDeployment(
  name: DeploymentName,
  options: DeploymentOptions = {},
): Promise<RunningDeployment> {
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), `strata-${name}-`));
  const namespace = options.namespace ?? randomUUID().slice(0, 8);
  const base = { DATA_DIR: dataDir };
  const started: ServiceProcess[] = [];
  const processes: Record<string, ServiceProcess> = {};
  const launches = new Map<string, ServiceProcessOptions>();
  const launch = async (launchOptions: ServiceProcessOptions): Promise<ServiceProcess> => {
    const service = await startServiceProcess(launchOptions);
    launches.set(launchOptions.name, launchOptions);
    started.push(service);
    processes[launchOptions.name] = service;
    return service;
  };
  try {
    if (name === 'distributed') {
      // A gateway alone must be given its secrets (every instance of a deployment shares them).
      const secrets = gatewaySecrets();
      const env = { ...base, ...secrets, ...kafkaEnvironment(options.kafkaBrokers, namespace), ...options.env };
      // Every process at once, on ports chosen beforehand: the operations service and the gateway find the services
      // behind them at start, and wait for them (SERVICE_DISCOVERY_TIMEOUT_MS).
      const ports = await freePorts(6);
      const [writerPort, indexerPort, auditPort, timeseriesPort, operationsPort, gatewayPort] = ports as [
        number,
        number,
        number,
        number,
        number,
        number,
      ];
      const url = (port: number) => `http://127.0.0.1:${port}`;
      const behindOperations = [writerPort, indexerPort, timeseriesPort].map(url).join(',');
      const behindGateway = [writerPort, indexerPort, auditPort, timeseriesPort, operationsPort].map(url).join(',');
      await together([
        launch({ entry: 'apps/metadata-writer/dist/main.js', name: 'metadata-writer', env, port: writerPort }),
        launch({ entry: 'apps/search-indexer/dist/main.js', name: 'search-indexer', env, port: indexerPort }),
        launch({ entry: 'apps/audit/dist/main.js', name: 'audit', env, port: auditPort }),
        launch({
          entry: 'apps/timeseries-indexer/dist/main.js',
          name: 'timeseries-indexer',
          env,
          port: timeseriesPort,
        }),
        launch({
          entry: 'apps/operations/dist/main.js',
          name: 'operations',
          env: { ...env, OPERATIONS_SERVICE_URLS: behindOperations },
          port: operationsPort,
        }),
        launch({
          entry: 'apps/gateway/dist/main.js',
          name: 'gateway',
          env: { ...env, SERVICE_URLS: behindGateway },
          port: gatewayPort,
        }),
      ]);
    } else {
      const kafka = name === 'standalone-kafka' ? kafkaEnvironment(options.kafkaBrokers, namespace) : {};
      const env = { ...base, ...kafka, ...options.env };
      await launch({ entry: 'apps/standalone/dist/main.js', name: 'strata', env });
    }
  } catch (error) {
    for (const service of started.reverse()) await service.kill();
    if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const front = processes['gateway'] ?? processes['strata'];
  if (!front) throw new Error('no front process started');
  const frontEnv = launches.get(processes['gateway'] ? 'gateway' : 'strata')?.env ?? {};
  const secret = (key: string, file: string) =>
    frontEnv[key] ?? readFileSync(join(dataDir, 'secrets', file), 'utf8').trim();
  return {
    name,
    baseUrl: front.baseUrl,
    dataDir,
    namespace,
    signingKey: secret('DATAHUB_TOKEN_SERVICE_SIGNING_KEY', 'token-signing-key'),
    systemClientSecret: secret('DATAHUB_SYSTEM_CLIENT_SECRET', 'system-client-secret'),
    rootPassword: frontEnv['STRATA_ROOT_PASSWORD'] ?? 'datahub',
    processes,
    restart: async (service) => {
      const previous = processes[service];
      const launchOptions = launches.get(service);
      if (!previous || !launchOptions) throw new Error(`No service ${service} in this deployment`);
      return launch({ ...launchOptions, port: previous.port });
    },
    stop: async () => {
      for (const service of [...new Set(Object.values(processes))].reverse()) await service.stop();
    },
    cleanUp: () => {
      if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
