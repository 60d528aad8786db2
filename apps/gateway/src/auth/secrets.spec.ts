import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveSecrets } from './secrets';

describe('resolveSecrets', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'strata-secrets-'));
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('uses the configured secrets and writes nothing', () => {
    const configured = { signingKey: 'k'.repeat(32), systemClientSecret: 's'.repeat(16) };
    expect(resolveSecrets(configured, dataDir)).toEqual(configured);
    expect(() => statSync(join(dataDir, 'secrets'))).toThrow();
  });

  it('makes missing ones once, readable by their owner only, and keeps them across starts', () => {
    const first = resolveSecrets({}, dataDir);
    expect(first.signingKey.length).toBeGreaterThanOrEqual(32);
    expect(first.signingKey).not.toBe(first.systemClientSecret);
    expect(statSync(join(dataDir, 'secrets')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, 'secrets', 'token-signing-key')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dataDir, 'secrets', 'token-signing-key'), 'utf8').trim()).toBe(first.signingKey);
    expect(resolveSecrets({}, dataDir)).toEqual(first);
  });

  it('refuses a kept secret others may read, or one too short to use', () => {
    resolveSecrets({}, dataDir);
    const key = join(dataDir, 'secrets', 'token-signing-key');
    chmodSync(key, 0o644);
    expect(() => resolveSecrets({}, dataDir)).toThrow(/may be read by others \(mode 644\)/);
    chmodSync(key, 0o600);
    writeFileSync(key, 'short\n');
    expect(() => resolveSecrets({}, dataDir)).toThrow(/holds no usable secret/);
  });
});
