import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startKafkaTestBroker, type KafkaTestBroker } from './kafka-test-broker';
import { repositoryRoot } from './standalone-process';
import { startDeployment, type DeploymentName, type RunningDeployment } from './strata-deployment';

/**
 * The deployments end-to-end suites share within one jest run: each started once, on the first request for it, and
 * stopped when the run ends. A suite that needs a catalog nobody else writes to, a setting of its own, or processes
 * it may kill starts its own deployment instead; a suite on a shared one names what it writes uniquely.
 *
 * - `standalone`: the standalone process as `npm start` runs it (authentication off).
 * - `standalone-auth`: the same with authentication on.
 * - `standalone-kafka`: the standalone process with its log on Kafka (authentication off).
 * - `distributed`: every service its own process over Kafka, behind a gateway, with authentication on (as the compose
 *   and Helm deployments run it) and the repository's example custom model loaded by every process.
 */
export type SharedDeploymentName = 'standalone' | 'standalone-auth' | 'standalone-kafka' | 'distributed';

/** A shared deployment as a suite sees it: where it answers and what it was started with. Never stopped by a suite. */
export interface SharedDeployment {
  readonly name: SharedDeploymentName;
  readonly deployment: DeploymentName;
  /** The public interface (the gateway, or the standalone process). */
  readonly baseUrl: string;
  readonly authentication: boolean;
  readonly namespace: string;
  readonly signingKey: string;
  readonly systemClientSecret: string;
  readonly rootPassword: string;
  /** The Kafka bootstrap servers, for the deployments on Kafka. */
  readonly kafkaBrokers?: readonly string[];
  /** Each process's own address, by service name (`strata`, or `gateway`, `metadata-writer`…). */
  readonly processes: Readonly<Record<string, { readonly baseUrl: string }>>;
}

/** The folder of the custom model every process of the shared distributed deployment loads. */
export const SHARED_CUSTOM_MODELS_DIR = join(repositoryRoot, 'e2e', 'fixtures', 'custom-models');

/** The environment variable through which suites find the pool. */
const POOL_VARIABLE = 'STRATA_TEST_DEPLOYMENT_POOL';

/** A running pool of shared deployments, served to the suites of the run. */
export interface DeploymentPool {
  readonly url: string;
  /** Stops every deployment started, then the broker, then the pool. */
  stop(): Promise<void>;
}

/**
 * Starts the pool (jest's global setup calls this in the run's main process, whose event loop serves the suites'
 * requests while they run in workers) and tells the suites where it is through the environment.
 */
export async function startDeploymentPool(): Promise<DeploymentPool> {
  let broker: Promise<KafkaTestBroker> | undefined;
  const started = new Map<SharedDeploymentName, Promise<{ running: RunningDeployment; shared: SharedDeployment }>>();
  const kafka = () => (broker ??= startKafkaTestBroker());
  const start = (name: SharedDeploymentName) => {
    let deployment = started.get(name);
    if (deployment === undefined) {
      deployment = startShared(name, kafka);
      started.set(name, deployment);
    }
    return deployment;
  };
  const server: Server = createServer((request, response) => {
    const name = /^\/deployments\/([a-z-]+)$/.exec(request.url ?? '')?.[1] as SharedDeploymentName | undefined;
    if (name === undefined || !SHARED.includes(name)) {
      response.writeHead(404).end(`No shared deployment ${request.url ?? ''}; there are ${SHARED.join(', ')}`);
      return;
    }
    start(name).then(
      ({ shared }) => {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(shared));
      },
      (error: unknown) => {
        response.writeHead(500).end(error instanceof Error ? (error.stack ?? error.message) : String(error));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env[POOL_VARIABLE] = url;
  return {
    url,
    async stop() {
      const deployments = await Promise.allSettled(started.values());
      for (const result of deployments) {
        if (result.status !== 'fulfilled') continue;
        await result.value.running.stop();
        result.value.running.cleanUp();
      }
      await (await broker?.catch(() => undefined))?.stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const SHARED: readonly SharedDeploymentName[] = ['standalone', 'standalone-auth', 'standalone-kafka', 'distributed'];

async function startShared(
  name: SharedDeploymentName,
  kafka: () => Promise<KafkaTestBroker>,
): Promise<{ running: RunningDeployment; shared: SharedDeployment }> {
  const authentication = name === 'standalone-auth' || name === 'distributed';
  const deployment: DeploymentName =
    name === 'distributed' ? 'distributed' : name === 'standalone-kafka' ? 'standalone-kafka' : 'standalone';
  const kafkaBrokers = deployment === 'standalone' ? undefined : (await kafka()).brokers;
  const env: Record<string, string> = authentication
    ? { METADATA_SERVICE_AUTH_ENABLED: 'true', STRATA_ROOT_PASSWORD: randomBytes(12).toString('base64url') }
    : {};
  if (name === 'distributed') env['CUSTOM_MODELS_DIR'] = SHARED_CUSTOM_MODELS_DIR;
  const running = await startDeployment(deployment, { ...(kafkaBrokers ? { kafkaBrokers } : {}), env });
  return {
    running,
    shared: {
      name,
      deployment,
      baseUrl: running.baseUrl,
      authentication,
      namespace: running.namespace,
      signingKey: running.signingKey,
      systemClientSecret: running.systemClientSecret,
      rootPassword: running.rootPassword,
      ...(kafkaBrokers ? { kafkaBrokers } : {}),
      processes: Object.fromEntries(
        Object.entries(running.processes).map(([service, process]) => [service, { baseUrl: process.baseUrl }]),
      ),
    },
  };
}

/**
 * The shared deployment `name` (started now if no suite asked for it yet). Only in the end-to-end jest project, whose
 * global setup runs the pool.
 */
export async function sharedDeployment(name: SharedDeploymentName): Promise<SharedDeployment> {
  const pool = process.env[POOL_VARIABLE];
  if (pool === undefined) {
    throw new Error(
      `${POOL_VARIABLE} is not set: shared deployments are served by the e2e jest project's global setup (npx jest --selectProjects e2e …)`,
    );
  }
  const response = await fetch(`${pool}/deployments/${name}`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`The shared deployment ${name} did not start:\n${text}`);
  return JSON.parse(text) as SharedDeployment;
}
