import { parseArgs } from 'node:util';
import { ACCESS_TOKEN_DURATIONS, ROOT_USER, TokenService, type AccessTokenDuration } from '@strata/auth';
import { ConfigError } from '@strata/config';
import { resolveSecrets } from '@strata/gateway';
import { loadStandaloneConfig } from './config';

const USAGE = `Usage: npm run token -- [--user <id>] [--duration <${Object.keys(ACCESS_TOKEN_DURATIONS).join('|')}>]

Prints an access token signed with this installation's key: DATAHUB_TOKEN_SERVICE_SIGNING_KEY when set, otherwise the
key the standalone process keeps in DATA_DIR/secrets (made now if it has not started yet). The token acts as the
user (default: the root user, datahub) for the duration (default ONE_DAY). Use it as
  curl -H "Authorization: Bearer <token>" http://localhost:8080/...`;

/**
 * `npm run token`: mints an access token from the local configuration — how an operator gets the first admin token,
 * before any user can log in or create one. It is a session token (not stored), so it cannot be revoked before it
 * expires: keep the duration short.
 */
async function main(argv: readonly string[]): Promise<number> {
  let values: { user?: string | undefined; duration?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { user: { type: 'string' }, duration: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const duration = values.duration ?? 'ONE_DAY';
  if (!Object.hasOwn(ACCESS_TOKEN_DURATIONS, duration)) {
    process.stderr.write(`Unknown duration ${duration}\n\n${USAGE}\n`);
    return 2;
  }
  const user = values.user ?? ROOT_USER.slice('urn:li:corpuser:'.length);
  if (!/^[^\s:]+$/.test(user)) {
    process.stderr.write(`Not a user id: ${user}\n`);
    return 2;
  }
  const config = loadStandaloneConfig(process.env);
  const { signingKey } = resolveSecrets(
    {
      signingKey: config.DATAHUB_TOKEN_SERVICE_SIGNING_KEY,
      systemClientSecret: config.DATAHUB_SYSTEM_CLIENT_SECRET,
    },
    config.DATA_DIR,
  );
  const tokens = new TokenService({ signingKey, issuer: config.DATAHUB_TOKEN_SERVICE_ISSUER, now: Date.now });
  const { token } = await tokens.mint(user, 'SESSION', ACCESS_TOKEN_DURATIONS[duration as AccessTokenDuration]);
  process.stdout.write(`${token}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof ConfigError ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
