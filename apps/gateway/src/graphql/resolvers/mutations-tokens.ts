import { z } from 'zod';
import { BadGatewayError, BadRequestError } from '@strata/model';
import type { GraphqlContext } from '../context';
import type { FieldResolver } from '../schema';
import { tokenOf } from './misc';

/**
 * Personal access tokens, made and revoked as the token routes make and revoke them (`POST /openapi/v1/tokens`,
 * `DELETE /openapi/v1/tokens/{id}`), answered in DataHub's GraphQL shape.
 */

const tokenMetadata = z.object({
  id: z.string(),
  name: z.string(),
  actorUrn: z.string(),
  ownerUrn: z.string(),
  createdAt: z.number(),
  expiresAt: z.number().nullable().optional(),
  description: z.string().optional(),
});
const createdAnswer = z.object({ accessToken: z.string(), metadata: tokenMetadata });

function parsed<T>(schema: z.ZodType<T>, body: unknown, what: string): T {
  const result = schema.safeParse(body);
  if (!result.success) throw new BadGatewayError(`The token routes answered ${what} in an unexpected shape`);
  return result.data;
}

interface CreateAccessTokenInput {
  readonly type: 'PERSONAL' | 'SERVICE_ACCOUNT';
  readonly actorUrn: string;
  readonly duration: string;
  readonly name: string;
  readonly description?: string | null;
}

/**
 * `createAccessToken`: a personal token, made by the token route as the caller — for itself, or for anyone with
 * MANAGE_ACCESS_TOKENS — so that the route's checks and answers are the API's.
 */
const createAccessToken: FieldResolver = async (
  _source,
  { input }: { readonly input: CreateAccessTokenInput },
  context: GraphqlContext,
) => {
  if (input.type !== 'PERSONAL') throw new BadRequestError(`Unsupported AccessTokenType ${input.type} provided`);
  const body = await context.call(
    {
      method: 'POST',
      resource: '/openapi/v1/tokens',
      body: {
        name: input.name,
        actorUrn: input.actorUrn,
        duration: input.duration,
        ...(input.description == null ? {} : { description: input.description }),
      },
    },
    context.request,
  );
  const created = parsed(createdAnswer, body, 'a new token');
  return { accessToken: created.accessToken, metadata: tokenOf(created.metadata) };
};

/**
 * `revokeAccessToken`: revoked by the token route itself, as the caller (its owner, or someone with
 * MANAGE_ACCESS_TOKENS; always with credentials), so that its checks and its write are the API's.
 */
const revokeAccessToken: FieldResolver = async (
  _source,
  { tokenId }: { readonly tokenId: string },
  context: GraphqlContext,
) => {
  await context.call({ method: 'DELETE', resource: '/openapi/v1/tokens/:id', params: { id: tokenId } });
  return true;
};

export const tokenMutations: Readonly<Record<string, FieldResolver>> = { createAccessToken, revokeAccessToken };
