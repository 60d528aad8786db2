import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The secrets authentication needs: the key tokens are signed with, and the system client's secret. */
export interface GatewaySecrets {
  readonly signingKey: string;
  readonly systemClientSecret: string;
}

/** The file under the secrets directory that holds the token signing key, when it is not configured. */
const SIGNING_KEY_FILE = 'token-signing-key';

/** Where the standalone process keeps the secrets it made, under its data directory. */
export function secretsDirectory(dataDir: string): string {
  return join(dataDir, 'secrets');
}

/**
 * The configured secrets, each made once and kept (in `<dataDir>/secrets`, readable by its owner only) when it is not
 * configured — what the standalone process does, so that its tokens survive restarts without any setup. A kept file
 * that others may read is refused: whoever reads the key can mint any token.
 */
export function resolveSecrets(
  configured: { readonly signingKey?: string | undefined; readonly systemClientSecret?: string | undefined },
  dataDir: string,
): GatewaySecrets {
  return {
    signingKey: configured.signingKey ?? kept(dataDir, SIGNING_KEY_FILE),
    systemClientSecret: configured.systemClientSecret ?? kept(dataDir, 'system-client-secret'),
  };
}

/** The file the token signing key is kept in under `dataDir`, when it is not configured. */
export function keptSigningKeyPath(dataDir: string): string {
  return join(secretsDirectory(dataDir), SIGNING_KEY_FILE);
}

/**
 * The token signing key a process made and keeps under `dataDir`, or `undefined` when none is kept there. It never
 * makes one: it is for tools that must sign as an existing server does (a key of their own would only sign tokens that
 * server refuses). A kept key is refused as `resolveSecrets` refuses it.
 */
export function readKeptSigningKey(dataDir: string): string | undefined {
  const path = keptSigningKeyPath(dataDir);
  try {
    statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
  return readKept(path);
}

function kept(dataDir: string, name: string): string {
  const directory = secretsDirectory(dataDir);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const path = join(directory, name);
  try {
    // `wx`: made only if absent, so two processes starting at once cannot each write their own.
    writeFileSync(path, `${randomBytes(48).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const secret = readKept(path);
  chmodSync(directory, 0o700);
  return secret;
}

/** A kept secret, refused when others may read it (whoever reads the key can mint any token) or too short to use. */
function readKept(path: string): string {
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new Error(
      `${path} may be read by others (mode ${mode.toString(8)}): make it readable by its owner only (chmod 600)`,
    );
  }
  const secret = readFileSync(path, 'utf8').trim();
  if (secret.length < 32) throw new Error(`${path} holds no usable secret: remove it to have a new one made`);
  return secret;
}
