import { z } from 'zod';
import { ACCESS_TOKEN_DURATIONS, PlatformPrivilege, type AccessTokenDuration, type TokenService } from '@strata/auth';
import { defineRoute, type RequestContext, type Route } from '@strata/http';
import {
  BadRequestError,
  ForbiddenError,
  NotFoundError,
  parseUrn,
  validateProposal,
  type EntityRegistry,
} from '@strata/model';
import { accessTokenUrn } from '../auth/authenticator';
import type { Authorizer } from '../auth/authorizer';
import type { SecurityView, StoredToken } from '../auth/security-view';
import type { ProposalSubmitter } from '../ingest/proposal-submitter';

export interface TokenRouteOptions {
  readonly registry: EntityRegistry;
  readonly submitter: ProposalSubmitter;
  readonly tokens: TokenService;
  readonly authorizer: Authorizer;
  readonly security: SecurityView;
  readonly now: () => number;
}

/** The tokens' writes are made by the caller, allowed by what the routes check (their own token, or any with MANAGE). */
const TOKEN_ROUTE = {
  kind: 'route',
  because: 'GENERATE_PERSONAL_ACCESS_TOKENS for the caller’s own tokens, MANAGE_ACCESS_TOKENS for anyone’s',
} as const;

/** DataHub's answer when someone may not make or revoke a token. */
const DENIED = 'Unauthorized to perform this action. Please contact your DataHub administrator.';

const durations = Object.keys(ACCESS_TOKEN_DURATIONS) as [AccessTokenDuration, ...AccessTokenDuration[]];

type TokenMetadata = StoredToken;

/**
 * Personal access tokens: made, listed and revoked by their users (with `GENERATE_PERSONAL_ACCESS_TOKENS`, which every
 * user holds by default) and by whoever may manage everyone's (`MANAGE_ACCESS_TOKENS`). A token is stored as its
 * `dataHubAccessToken` entity, made by the caller; revoking deletes it, and from the answer on no gateway accepts the
 * token. These routes always need credentials, whether authentication is on or off.
 */
export function tokenRoutes(options: TokenRouteOptions): Route[] {
  const mayManage = (context: RequestContext) =>
    options.authorizer.allows(context, [[PlatformPrivilege.MANAGE_ACCESS_TOKENS]]);
  return [
    defineRoute({
      method: 'POST',
      resource: '/openapi/v1/tokens',
      family: 'openapi',
      access: {
        kind: 'privilege',
        // Making a token for someone else needs MANAGE_ACCESS_TOKENS: the handler checks that once it knows for whom.
        anyOf: [['GENERATE_PERSONAL_ACCESS_TOKENS'], ['MANAGE_ACCESS_TOKENS']],
        message: DENIED,
        always: true,
      },
      summary: 'Make a personal access token: answered once, with its metadata; only its metadata is kept.',
      description:
        'For the caller, or (with MANAGE_ACCESS_TOKENS) for `actorUrn`. `duration`: ONE_HOUR, ONE_DAY, ONE_WEEK, ONE_MONTH, THREE_MONTHS, SIX_MONTHS, ONE_YEAR or NO_EXPIRY.',
      body: z.object({
        name: z.string({ error: 'name must be a string' }).min(1, 'name must not be empty').max(200),
        description: z.string().max(2000).optional(),
        actorUrn: z.string().min(1).optional(),
        duration: z.enum(durations, { error: `duration must be one of ${durations.join(', ')}` }),
      }),
      example: { body: { name: 'ingestion', duration: 'ONE_MONTH', description: 'For the nightly ingestion' } },
      handle: async ({ body, context }) => {
        const caller = context.actor;
        const actor = body.actorUrn === undefined ? caller : userUrn(body.actorUrn);
        // The declaration let in those who may make their own; someone else's needs more.
        if (actor !== caller && !(await mayManage(context))) throw new ForbiddenError(DENIED);
        const principal = await (await options.security.snapshotFor(context)).principal(actor);
        if (!principal.exists || principal.removed || principal.suspended) {
          throw new BadRequestError(`${actor} is not an active user: a token for it would not work`);
        }
        const { token, metadata } = await storeAccessToken(options, context, {
          actor,
          name: body.name,
          ...(body.description === undefined ? {} : { description: body.description }),
          durationMs: ACCESS_TOKEN_DURATIONS[body.duration],
        });
        return { body: { accessToken: token, metadata: shown(metadata) } };
      },
    }),
    defineRoute({
      method: 'GET',
      resource: '/openapi/v1/tokens',
      family: 'openapi',
      access: { kind: 'caller', always: true },
      summary: 'The metadata of stored access tokens: the caller’s own, or (with MANAGE_ACCESS_TOKENS) anyone’s.',
      description:
        'With `actorUrn`, the tokens acting as that user; without, every token the caller may see (theirs, or all).',
      query: z.object({ actorUrn: z.string().min(1).optional() }),
      handle: async ({ query, context }) => {
        const caller = context.actor;
        const actor = query.actorUrn === undefined ? undefined : userUrn(query.actorUrn);
        const manager = await mayManage(context);
        if (actor !== undefined && actor !== caller && !manager) throw new ForbiddenError(DENIED);
        const found = (await options.security.tokens()).filter(
          (token) => actor === undefined || token.actorUrn === actor,
        );
        const visible = manager
          ? found
          : found.filter((token) => token.ownerUrn === caller || token.actorUrn === caller);
        return { body: { total: visible.length, tokens: visible.map(shown) } };
      },
    }),
    defineRoute({
      method: 'DELETE',
      resource: '/openapi/v1/tokens/:id',
      family: 'openapi',
      access: { kind: 'caller', always: true },
      summary: 'Revoke an access token: from the answer on, no gateway accepts it.',
      description: 'By the user who made it, or with MANAGE_ACCESS_TOKENS.',
      handle: async ({ params, context }) => {
        const id = params['id'] ?? '';
        const [token] = await options.security.tokens(id);
        if (token === undefined) throw new NotFoundError(`No access token ${id}`);
        if (token.ownerUrn !== context.actor && !(await mayManage(context))) {
          throw new ForbiddenError(DENIED);
        }
        await revokeAccessToken(options, context, id);
        return { status: 204 };
      },
    }),
  ];
}

/** What a new stored token is for. */
export interface NewStoredToken {
  /** The user it acts as. */
  readonly actor: string;
  readonly name: string;
  readonly description?: string;
  /** How long it lasts; undefined: it never expires. */
  readonly durationMs: number | undefined;
}

/**
 * Mints a stored access token for `token.actor`, made by the caller, and writes its `dataHubAccessToken` entity
 * (waiting until it is stored, so that the token works at once): what a personal token and a console session are.
 * Revoking deletes the entity, and from then on no gateway accepts the token.
 */
export async function storeAccessToken(
  options: Pick<TokenRouteOptions, 'registry' | 'submitter' | 'tokens' | 'now'>,
  context: RequestContext,
  token: NewStoredToken,
  authorization: { readonly kind: 'route'; readonly because: string } = TOKEN_ROUTE,
): Promise<{ token: string; metadata: TokenMetadata }> {
  const minted = await options.tokens.mint(token.actor.slice('urn:li:corpuser:'.length), 'PERSONAL', token.durationMs);
  const createdAt = options.now();
  const metadata: TokenMetadata = {
    id: minted.claims.jti,
    name: token.name,
    actorUrn: token.actor,
    ownerUrn: context.actor,
    createdAt,
    ...(token.durationMs === undefined ? {} : { expiresAt: createdAt + token.durationMs }),
    ...(token.description === undefined ? {} : { description: token.description }),
  };
  const { id: _id, ...info } = metadata;
  const proposal = validateProposal(options.registry, {
    entityType: 'dataHubAccessToken',
    entityUrn: accessTokenUrn(minted.claims.jti),
    changeType: 'UPSERT',
    aspectName: 'dataHubAccessTokenInfo',
    aspect: { value: JSON.stringify(info), contentType: 'application/json' },
  });
  await options.submitter.submit([proposal], { ...context, authorization, wait: true });
  return { token: minted.token, metadata };
}

/** Deletes a stored token's entity, as `context`'s caller: from the answer on, no gateway accepts the token. */
export async function revokeAccessToken(
  options: Pick<TokenRouteOptions, 'registry' | 'submitter'>,
  context: RequestContext,
  id: string,
  authorization: { readonly kind: 'route'; readonly because: string } = TOKEN_ROUTE,
): Promise<void> {
  const proposal = validateProposal(options.registry, {
    entityType: 'dataHubAccessToken',
    entityUrn: accessTokenUrn(id),
    changeType: 'DELETE',
    aspectName: 'dataHubAccessTokenKey',
  });
  await options.submitter.submit([proposal], { ...context, authorization, wait: true });
}

/** The metadata as the API shows it: `expiresAt` null for a token that never expires. */
function shown(token: TokenMetadata): Record<string, unknown> {
  return {
    id: token.id,
    name: token.name,
    actorUrn: token.actorUrn,
    ownerUrn: token.ownerUrn,
    createdAt: token.createdAt,
    expiresAt: token.expiresAt ?? null,
    ...(token.description === undefined ? {} : { description: token.description }),
  };
}

function userUrn(text: string): string {
  let entityType: string;
  try {
    entityType = parseUrn(text).entityType;
  } catch {
    throw new BadRequestError(`actorUrn must be a user URN (urn:li:corpuser:<id>), got ${text}`);
  }
  if (entityType !== 'corpuser')
    throw new BadRequestError(`actorUrn must be a user URN (urn:li:corpuser:<id>), got ${text}`);
  return text;
}
