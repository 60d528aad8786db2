import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ACCESS_TOKEN_DURATIONS, ROOT_USER, TokenService, type AccessTokenDuration } from '@strata/auth';
import { keptSigningKeyPath, readKeptSigningKey } from '@strata/gateway';
import { loadStandaloneConfig } from './config';

const USAGE = `Usage: npm run token -- [--user <id>] [--duration <${Object.keys(ACCESS_TOKEN_DURATIONS).join('|')}>]

Prints an access token signed with the server's key: DATAHUB_TOKEN_SERVICE_SIGNING_KEY when set, otherwise the key the
standalone server made and keeps in DATA_DIR/secrets (run it with the server's DATA_DIR). The token acts as the user
(default: the root user, datahub) for the duration (default ONE_DAY). Use it as
  curl -H "Authorization: Bearer <token>" http://localhost:8080/...`;

/** What the token command reads and writes: its environment, the clock, and its two output streams. */
export interface TokenCommandIo {
  readonly environment: Readonly<Record<string, string | undefined>>;
  readonly now: () => number;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/**
 * `npm run token`: mints an access token from the local configuration — how an operator gets the first admin token,
 * before any user can log in or create one. It is a session token (not stored), so it cannot be revoked before it
 * expires: keep the duration short. It signs only with the server's key, configured or kept in the data directory,
 * and never makes one: a new key would sign a token the server refuses. Resolves with the exit code; a configuration
 * the server itself would refuse rejects (`ConfigError`).
 */
export async function runTokenCommand(argv: readonly string[], io: TokenCommandIo): Promise<number> {
  let values: { user?: string | undefined; duration?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { user: { type: 'string' }, duration: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    io.stderr(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (values.help === true) {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  const duration = values.duration ?? 'ONE_DAY';
  if (!Object.hasOwn(ACCESS_TOKEN_DURATIONS, duration)) {
    io.stderr(`Unknown duration ${duration}\n\n${USAGE}\n`);
    return 2;
  }
  const user = values.user ?? ROOT_USER.slice('urn:li:corpuser:'.length);
  if (!/^[^\s:]+$/.test(user)) {
    io.stderr(`Not a user id: ${user}\n`);
    return 2;
  }
  const config = loadStandaloneConfig(io.environment);
  const signingKey = config.DATAHUB_TOKEN_SERVICE_SIGNING_KEY ?? readKeptSigningKey(config.DATA_DIR);
  if (signingKey === undefined) {
    io.stderr(
      `No token signing key: DATAHUB_TOKEN_SERVICE_SIGNING_KEY is not set, and there is no key at ${resolve(keptSigningKeyPath(config.DATA_DIR))} (DATA_DIR=${config.DATA_DIR}).\n` +
        "Run this with the server's data directory (DATA_DIR=<the server's DATA_DIR> npm run token --silent) after the " +
        "server has started once, or with the server's key (DATAHUB_TOKEN_SERVICE_SIGNING_KEY=…). No key was made: a new " +
        'one would sign a token the server refuses.\n',
    );
    return 1;
  }
  const tokens = new TokenService({ signingKey, issuer: config.DATAHUB_TOKEN_SERVICE_ISSUER, now: io.now });
  const { token } = await tokens.mint(user, 'SESSION', ACCESS_TOKEN_DURATIONS[duration as AccessTokenDuration]);
  io.stdout(`${token}\n`);
  return 0;
}
