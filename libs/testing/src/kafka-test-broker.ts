import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { delimiter, join } from 'node:path';

/** A Kafka-protocol broker for tests: librdkafka's mock cluster, run by Debian's `kcat` on loopback. */
export interface KafkaTestBroker {
  /** Bootstrap addresses (`127.0.0.1:PORT`) to give a Kafka client. */
  readonly brokers: string[];
  /**
   * Ends the broker process (SIGTERM, then SIGKILL after a grace period) and resolves once it exited. Topics, records
   * and committed offsets are gone with it. Safe to call more than once.
   */
  stop(): Promise<void>;
  /**
   * Freezes the broker (SIGSTOP): connections stay open but nothing is answered, as with a broker that is briefly
   * away. `resume()` (SIGCONT) brings it back on the same address with its data.
   */
  pause(): void;
  resume(): void;
}

export interface KafkaTestBrokerOptions {
  /**
   * The topic kcat itself consumes to keep the mock cluster alive; created (with 4 partitions) at start-up. Default
   * `kafka-test-broker-probe`. Every other topic is created by the mock on first use, also with 4 partitions.
   */
  readonly topic?: string;
  /** How long to wait for the broker to accept connections. Default 10 s. */
  readonly startTimeoutMs?: number;
}

const missingKcat =
  "kcat not found: install it with 'apt-get install kcat' (the Kafka tests run against librdkafka's mock cluster)";

/** How long `stop()` waits after SIGTERM before it sends SIGKILL. */
const stopGraceMs = 2000;

/**
 * Starts a Kafka-protocol broker on loopback (`docs/architecture.md`, tests): `kcat -b 127.0.0.1:1 -C -X test.mock.num.brokers=1 -t
 * <topic> -d mock`. With `test.mock.num.brokers` set, librdkafka ignores the given bootstrap address, starts an
 * in-process mock cluster and logs its real address (`bootstrap.servers=127.0.0.1:PORT`); this reads it from the log
 * and resolves once the port accepts connections.
 *
 * What the mock does and does not do (topics auto-created with 4 partitions, no idempotent producer, no transactions,
 * no topic or group admin APIs) is listed in `shared/reference/engines-here.md`.
 *
 * The process never outlives the test process: it is killed on the test process's `exit`, and, where util-linux's
 * `setpriv` is installed, the kernel also kills it when its parent dies without running exit handlers (SIGKILL).
 */
export async function startKafkaTestBroker(options: KafkaTestBrokerOptions = {}): Promise<KafkaTestBroker> {
  const kcat = findExecutable('kcat');
  if (kcat === undefined) throw new Error(missingKcat);
  const topic = options.topic ?? 'kafka-test-broker-probe';
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;
  const kcatArgs = ['-b', '127.0.0.1:1', '-C', '-X', 'test.mock.num.brokers=1', '-t', topic, '-d', 'mock'];
  // setpriv sets the parent-death signal and then execs kcat, so the process keeps kcat's PID.
  const setpriv = findExecutable('setpriv');
  const [command, args] =
    setpriv === undefined ? [kcat, kcatArgs] : [setpriv, ['--pdeathsig', 'SIGKILL', '--', kcat, ...kcatArgs]];
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });

  // The mock logs every request at debug level: keep draining both pipes so that kcat never blocks on a full pipe,
  // but keep only the beginning (for failure messages and the address line).
  let output = '';
  const collect = (chunk: Buffer): void => {
    if (output.length < 64 * 1024) output += chunk.toString('utf8');
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  // A broker left running must not keep the test process alive: it is killed when that process exits (below).
  child.unref();
  unref(child.stdout);
  unref(child.stderr);

  const state = { exited: false, spawnError: undefined as Error | undefined };
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
    child.once('error', (error) => {
      state.spawnError = error;
      // A process that could not be spawned never emits 'exit'.
      if (child.pid === undefined) resolve();
    });
  });
  void exited.then(() => {
    state.exited = true;
  });
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (!state.exited && child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        // A paused broker handles SIGTERM only once continued.
        child.kill('SIGCONT');
        const grace = setTimeout(() => child.kill('SIGKILL'), stopGraceMs);
        await exited;
        clearTimeout(grace);
      }
      process.removeListener('exit', killOnExit);
    })();
    return stopping;
  };

  try {
    const port = await waitForPort(() => output, state, startTimeoutMs);
    const signal = (name: NodeJS.Signals): void => {
      if (!state.exited) child.kill(name);
    };
    return {
      brokers: [`127.0.0.1:${port}`],
      stop,
      pause: () => {
        signal('SIGSTOP');
      },
      resume: () => {
        signal('SIGCONT');
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Waits for the address line in kcat's log, then for the port to accept a connection. */
async function waitForPort(
  output: () => string,
  state: { readonly exited: boolean; readonly spawnError: Error | undefined },
  timeoutMs: number,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (state.spawnError !== undefined) {
      const code = (state.spawnError as NodeJS.ErrnoException).code;
      throw code === 'ENOENT' ? new Error(missingKcat) : state.spawnError;
    }
    if (state.exited) throw new Error(`kcat exited before the mock cluster was ready:\n${output()}`);
    const match = /bootstrap\.servers=127\.0\.0\.1:(\d+)/.exec(output());
    if (match?.[1] !== undefined && (await accepts(Number(match[1])))) return Number(match[1]);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`kcat's mock cluster did not accept connections within ${timeoutMs} ms:\n${output()}`);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const finish = (result: boolean): void => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(1000, () => {
      finish(false);
    });
    socket.once('connect', () => {
      finish(true);
    });
    socket.once('error', () => {
      finish(false);
    });
  });
}

/** Pipes to a child process are sockets; typed as plain streams, they still have `unref`. */
function unref(stream: NodeJS.ReadableStream): void {
  (stream as Partial<Socket>).unref?.();
}

/** The executable's absolute path on PATH, or undefined. */
function findExecutable(name: string): string | undefined {
  for (const directory of (process.env.PATH ?? '').split(delimiter)) {
    if (directory === '') continue;
    const candidate = join(directory, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}
