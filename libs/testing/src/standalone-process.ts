import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository root (this file lives in libs/testing/src or libs/testing/dist). */
export const repositoryRoot = resolve(__dirname, '..', '..', '..');

/** A Strata service started as its own OS process, the way a user starts it. */
export interface ServiceProcess {
  readonly name: string;
  readonly baseUrl: string;
  readonly port: number;
  readonly pid: number;
  /** Everything the process wrote to stdout and stderr so far (for failure messages). */
  output(): string;
  /** SIGTERM, and wait for a clean exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: a crash, with no chance to clean up. */
  kill(): Promise<void>;
}

export interface ServiceProcessOptions {
  /** Built entry point relative to the repository root, e.g. `apps/gateway/dist/main.js`. */
  readonly entry: string;
  readonly name: string;
  /** Environment on top of this process's (HOST, PORT and LOG_LEVEL are the harness's own). */
  readonly env: Readonly<Record<string, string>>;
  /** How long to wait for readiness. Default 60 s. */
  readonly startTimeoutMs?: number;
  /** Port to bind; default 0 (a free one). Pass a crashed process's port to start it again in its place. */
  readonly port?: number;
}

/**
 * Starts a built service entry point on a free loopback port and waits until it logged that it is ready (which gives
 * its port: it binds port 0) and its `/health` answers 200.
 */
export async function startServiceProcess(options: ServiceProcessOptions): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [join(repositoryRoot, options.entry)], {
    cwd: repositoryRoot,
    // LOG_LEVEL stays at info: the harness learns the port from the "… is ready" line, among the access log's lines.
    env: { ...process.env, ...options.env, HOST: '127.0.0.1', PORT: String(options.port ?? 0), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString('utf8');
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<number | null>((resolveExit) => {
    child.once('exit', (code) => {
      resolveExit(code);
    });
  });
  const port = await waitForReadyPort(child, options.name, () => output, exited, options.startTimeoutMs ?? 60_000);
  return {
    name: options.name,
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid ?? -1,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface StandaloneProcessOptions {
  /** Data directory; default a fresh temporary directory, removed by {@link StandaloneProcess.cleanUp}. */
  readonly dataDir?: string;
  /** Extra environment variables (HOST, PORT and LOG_LEVEL are the harness's own). */
  readonly env?: Readonly<Record<string, string>>;
  /** How long to wait for readiness. Default 60 s. */
  readonly startTimeoutMs?: number;
}

export interface StandaloneProcess extends ServiceProcess {
  readonly dataDir: string;
  /** Removes the data directory if this harness created it. */
  cleanUp(): void;
}

/**
 * Starts Strata the way a user does — the built standalone entry point, `node apps/standalone/dist/main.js` (what
 * `npm start` runs after building) — on a free loopback port, and waits until `/health` answers 200.
 */
export async function startStandalone(options: StandaloneProcessOptions = {}): Promise<StandaloneProcess> {
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'strata-e2e-'));
  const service = await startServiceProcess({
    entry: join('apps', 'standalone', 'dist', 'main.js'),
    name: 'Strata',
    env: { ...options.env, DATA_DIR: dataDir },
    ...(options.startTimeoutMs === undefined ? {} : { startTimeoutMs: options.startTimeoutMs }),
  });
  return {
    ...service,
    dataDir,
    cleanUp: () => {
      if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Reads the port from the "<name> is ready" log line, then checks `/health`. */
async function waitForReadyPort(
  child: ChildProcess,
  name: string,
  output: () => string,
  exited: Promise<number | null>,
  timeoutMs: number,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  const state = { exited: false };
  void exited.then(() => {
    state.exited = true;
  });
  while (Date.now() < deadline) {
    if (state.exited) throw new Error(`${name} exited before it was ready:\n${output()}`);
    const port = readyPort(output());
    if (port !== undefined) {
      const response = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
      if (response?.status === 200) return port;
    }
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`${name} was not ready within ${timeoutMs} ms:\n${output()}`);
}

function readyPort(output: string): number | undefined {
  for (const line of output.split('\n')) {
    if (!line.includes(' is ready"')) continue;
    try {
      const parsed = JSON.parse(line) as { port?: unknown };
      if (typeof parsed.port === 'number') return parsed.port;
    } catch {
      // not a JSON log line
    }
  }
  return undefined;
}
