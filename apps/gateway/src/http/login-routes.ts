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
import { clearedSessionCookie, sessionCookie, sessionTokenOf } from '../auth/session-cookie';
import type { ProposalSubmitter } from '../ingest/proposal-submitter';
import { revokeAccessToken, storeAccessToken } from './token-routes';

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
  readonly now: () => number;
}

/** Sessions' writes (their token entity) are the user's own, allowed by the password the route checked. */
const SESSION_WRITE = { kind: 'route', because: 'the user’s own session, after checking the password' } as const;

/** The stored token of a sign-in is named so in the user's token list. */
export const SESSION_TOKEN_NAME = 'Session';

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
 * Native users' passwords and sessions: `POST /logIn` trades a user name and password for a session token (a day
 * long, like DataHub's), answered in the body and set as the console's session cookie (HttpOnly, SameSite=Strict);
 * `POST /logOut` ends the session of the cookie or bearer token it is sent with, server-side. A session's token is
 * stored (a `dataHubAccessToken` named "Session", listed with the user's tokens), so that ending it — signing out, or
 * revoking it — is seen by every gateway at once. And `POST /openapi/v1/users/credentials` lets an administrator (`MANAGE_USER_CREDENTIALS`) set a
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
        const { token } = await storeAccessToken(
          options,
          { ...context, actor },
          {
            actor,
            name: SESSION_TOKEN_NAME,
            description: 'Signed in with a password',
            durationMs: SESSION_TOKEN_DURATION_MS,
          },
          SESSION_WRITE,
        );
        return {
          body: { accessToken: token },
          headers: {
            'Set-Cookie': sessionCookie(token, SESSION_TOKEN_DURATION_MS, context),
            'Cache-Control': 'no-store',
          },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/logOut',
      family: 'openapi',
      access: { kind: 'open' },
      summary: 'End the session of the session cookie (or of the bearer token) the request carries, server-side.',
      description:
        'Its token stops working on every gateway, and the cookie is cleared. Answers 204 whether or not there was a session to end.',
      handle: async ({ context }) => {
        const bearer = /^Bearer\s+(\S+)$/i.exec(context.header('authorization') ?? '')?.[1];
        const token = bearer ?? sessionTokenOf(context.header('cookie'));
        if (token !== undefined) await endSession(options, context, token);
        return { status: 204, headers: { 'Set-Cookie': clearedSessionCookie(context), 'Cache-Control': 'no-store' } };
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

/** Revokes a session's stored token as its own user; a token that does not verify or is not stored ends nothing. */
async function endSession(options: LoginRouteOptions, context: RequestContext, token: string): Promise<void> {
  let claims;
  try {
    claims = await options.tokens.verify(token);
  } catch {
    return;
  }
  if (claims.version !== '2') return;
  const [stored] = await options.security.tokens(claims.jti);
  if (stored === undefined) return;
  await revokeAccessToken(
    options,
    { ...context, actor: `urn:li:corpuser:${claims.actorId}` },
    claims.jti,
    SESSION_WRITE,
  );
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
