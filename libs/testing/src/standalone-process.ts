import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository root (this file lives in libs/testing/src or libs/testing/dist). */
export const repositoryRoot = resolve(__dirname, '..', '..', '..');

export interface StandaloneProcessOptions {
  /** Data directory; default a fresh temporary directory, removed by {@link StandaloneProcess.cleanUp}. */
  readonly dataDir?: string;
  /** Extra environment variables (HOST, PORT, DATA_DIR and LOG_LEVEL are the harness's own). */
  readonly env?: Readonly<Record<string, string>>;
  /** How long to wait for readiness. Default 30 s. */
  readonly startTimeoutMs?: number;
}

export interface StandaloneProcess {
  readonly baseUrl: string;
  readonly port: number;
  readonly dataDir: string;
  readonly pid: number;
  /** Everything the process wrote to stdout and stderr so far (for failure messages). */
  output(): string;
  /** SIGTERM, and wait for a clean exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: a crash, with no chance to clean up. */
  kill(): Promise<void>;
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
  const child = spawn(process.execPath, [join(repositoryRoot, 'apps', 'standalone', 'dist', 'main.js')], {
    cwd: repositoryRoot,
    // LOG_LEVEL stays at info: the harness learns the port from the "Strata is ready" line (Strata logs no requests).
    env: { ...process.env, ...options.env, HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info' },
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

  const port = await waitForReadyPort(child, () => output, exited, options.startTimeoutMs ?? 30_000);
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    port,
    dataDir,
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
    cleanUp: () => {
      if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Reads the port from the "Strata is ready" log line (the process binds port 0), then checks `/health`. */
async function waitForReadyPort(
  child: ChildProcess,
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
    if (state.exited) throw new Error(`Strata exited before it was ready:\n${output()}`);
    const port = readyPort(output());
    if (port !== undefined) {
      const response = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
      if (response?.status === 200) return port;
    }
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`Strata was not ready within ${timeoutMs} ms:\n${output()}`);
}

function readyPort(output: string): number | undefined {
  for (const line of output.split('\n')) {
    if (!line.includes('Strata is ready')) continue;
    try {
      const parsed = JSON.parse(line) as { port?: unknown };
      if (typeof parsed.port === 'number') return parsed.port;
    } catch {
      // not a JSON log line
    }
  }
  return undefined;
}
