import { z } from 'zod';
import {
  hashPassword,
  SESSION_TOKEN_DURATION_MS,
  verifyPassword,
  type PasswordCredentials,
  type TokenService,
} from '@strata/auth';
import { defineRoute, type RequestContext, type Route } from '@strata/http';
import {
  BadRequestError,
  UnauthorizedError,
  validateProposal,
  type EntityRegistry,
  type ValidatedProposal,
} from '@strata/model';
import type { Authorizer } from '../auth/authorizer';
import type { SecurityView } from '../auth/security-view';
import type { ProposalSubmitter } from '../ingest/proposal-submitter';

export interface LoginRouteOptions {
  readonly registry: EntityRegistry;
  readonly submitter: ProposalSubmitter;
  readonly tokens: TokenService;
  readonly authorizer: Authorizer;
  readonly security: SecurityView;
  /**
   * Told of every login, kept or refused (never the password), before it is answered: what the audit trail records.
   * A rejection fails the login (503), so that no login goes unrecorded.
   */
  readonly onLogin?: (login: LoginAttempt, context: RequestContext) => Promise<void>;
}

/** A login, kept or refused; a refusal says why (`INVALID_CREDENTIALS`, `SUSPENDED`…), never with the password. */
export interface LoginAttempt {
  readonly actor: string;
  readonly succeeded: boolean;
  readonly reason?: string;
}

/** Why a login is refused, or undefined when the password is the user's and the user may log in. */
async function refusalOf(
  options: LoginRouteOptions,
  context: RequestContext,
  actor: string,
  username: string,
  password: string,
): Promise<string | undefined> {
  if (/[\s:,()]/.test(username)) return 'INVALID_CREDENTIALS';
  const principal = await (await options.security.snapshotFor(context)).principal(actor);
  if (!principal.exists) return 'HARD_DELETED';
  if (principal.removed) return 'SOFT_DELETED';
  if (principal.suspended) return 'SUSPENDED';
  const credentials = await options.security.credentials(actor);
  if (credentials === null || !(await verifyPassword(password, credentials))) return 'INVALID_CREDENTIALS';
  return undefined;
}

/** DataHub's answer to every refused login, whatever the reason (which the server's log and audit keep). */
const INVALID_CREDENTIALS = 'Invalid Credentials';
/** The shortest password an administrator may set. */
const MIN_PASSWORD_LENGTH = 8;

/**
 * Native users' passwords: `POST /logIn` trades a user name and password for a session token (a day long, like
 * DataHub's), and `POST /openapi/v1/users/credentials` lets an administrator (`MANAGE_USER_CREDENTIALS`) set a
 * user's password, kept as a salted scrypt hash in `corpUserCredentials` — which no read returns.
 */
export function loginRoutes(options: LoginRouteOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      resource: '/logIn',
      family: 'openapi',
      access: { kind: 'open' },
      summary: 'Log in with a native user’s name and password: answers {"accessToken"}, a session token for a day.',
      description:
        'Open to everyone. Every refusal — unknown user, wrong password, soft-deleted or suspended user, no password set — is the same 401 "Invalid Credentials".',
      body: z.object({
        username: z.string({ error: 'username must be a string' }).trim().min(1, 'User name must not be empty.'),
        password: z.string({ error: 'password must be a string' }).min(1, 'Password must not be empty.'),
      }),
      example: { body: { username: 'datahub', password: 'datahub' } },
      handle: async ({ body, context }) => {
        const actor = `urn:li:corpuser:${body.username}`;
        const refusal = await refusalOf(options, context, actor, body.username, body.password);
        // Recorded before the answer: a login the trail does not hold is not answered.
        await options.onLogin?.(
          { actor, succeeded: refusal === undefined, ...(refusal === undefined ? {} : { reason: refusal }) },
          context,
        );
        if (refusal !== undefined) throw new UnauthorizedError(INVALID_CREDENTIALS);
        const { token } = await options.tokens.mint(body.username, 'SESSION', SESSION_TOKEN_DURATION_MS);
        return { body: { accessToken: token } };
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/openapi/v1/users/credentials',
      family: 'openapi',
      access: {
        kind: 'privilege',
        anyOf: [['MANAGE_USER_CREDENTIALS']],
        message: 'User {actor} is unauthorized to set the credentials of users',
        always: true,
      },
      summary: "Set a native user's password (MANAGE_USER_CREDENTIALS).",
      description: `The user must exist. The password (at least ${MIN_PASSWORD_LENGTH} characters) is kept only as a salted hash.`,
      body: z.object({
        userUrn: z
          .string({ error: 'userUrn must be a string' })
          .regex(/^urn:li:corpuser:[^\s:,()]+$/, 'userUrn must be urn:li:corpuser:<id>'),
        password: z
          .string({ error: 'password must be a string' })
          .min(MIN_PASSWORD_LENGTH, `password must be at least ${MIN_PASSWORD_LENGTH} characters`),
      }),
      example: { body: { userUrn: 'urn:li:corpuser:jdoe', password: 'a long passphrase' } },
      handle: async ({ body, context }) => {
        const principal = await (await options.security.snapshotFor(context)).principal(body.userUrn);
        if (!principal.exists)
          throw new BadRequestError(`No user ${body.userUrn}: create it before giving it a password`);
        await options.submitter.submit(
          [credentialsProposal(options.registry, body.userUrn, await hashPassword(body.password))],
          {
            ...context,
            authorization: { kind: 'route', because: 'MANAGE_USER_CREDENTIALS, which the route declares' },
            wait: true,
          },
        );
        return { status: 204 };
      },
    }),
  ];
}

/** The proposal keeping a user's password hash. */
export function credentialsProposal(
  registry: EntityRegistry,
  userUrn: string,
  credentials: PasswordCredentials,
): ValidatedProposal {
  return validateProposal(registry, {
    entityType: 'corpuser',
    entityUrn: userUrn,
    changeType: 'UPSERT',
    aspectName: 'corpUserCredentials',
    aspect: { value: JSON.stringify(credentials), contentType: 'application/json' },
  });
}
