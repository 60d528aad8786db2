import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TokenService } from '@strata/auth';
import { resolveSecrets } from '@strata/gateway';
import { runTokenCommand } from './token-command';

const now = () => Date.UTC(2025, 0, 1);

/** Runs the command in `environment`; what it printed on each stream, and its exit code. */
async function run(
  argv: readonly string[],
  environment: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runTokenCommand(argv, {
    environment,
    now,
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  });
  return { code, stdout, stderr };
}

describe('npm run token', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'strata-token-'));
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("refuses, saying where it looked and how to find the server's key, when there is no key — and makes none", async () => {
    const result = await run([], { DATA_DIR: dataDir });

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(join(dataDir, 'secrets', 'token-signing-key'));
    expect(result.stderr).toContain('DATAHUB_TOKEN_SERVICE_SIGNING_KEY');
    expect(result.stderr).toContain("DATA_DIR=<the server's DATA_DIR>");
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('signs with the key the server keeps in its data directory', async () => {
    const { signingKey } = resolveSecrets({}, dataDir);

    const result = await run(['--user', 'jdoe'], { DATA_DIR: dataDir });

    expect(result.code).toBe(0);
    const claims = await new TokenService({ signingKey, now }).verify(result.stdout.trim());
    expect(claims).toMatchObject({ actorId: 'jdoe', type: 'SESSION' });
  });

  it('signs with the configured key, and keeps none in the data directory', async () => {
    const signingKey = 'k'.repeat(32);

    const result = await run([], { DATA_DIR: dataDir, DATAHUB_TOKEN_SERVICE_SIGNING_KEY: signingKey });

    expect(result.code).toBe(0);
    const claims = await new TokenService({ signingKey, now }).verify(result.stdout.trim());
    expect(claims).toMatchObject({ actorId: 'datahub' });
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
