import { z } from 'zod';
import { SecurityMark } from '@strata/auth';
import { defineRoute, type Route } from '@strata/http';
import { BadRequestError, parseUrn, InvalidUrnError } from '@strata/model';
import type { AspectStore, StoredAspect } from '@strata/store';
import { allLatest } from '../reads/latest-values';

/**
 * What the gateway reads of the primary store to authenticate and authorize, served under `/internal/` (never
 * forwarded to clients, never documented): the security marks, every policy, and what one principal is — all
 * straight from the store, so that a change answered is a change seen (docs/adr/0020).
 */
export function securityRoutes(store: AspectStore): Route[] {
  return [
    defineRoute({
      method: 'GET',
      resource: '/internal/security/marks',
      family: 'openapi',
      summary: 'The security marks: changed whenever a policy, or a user, group, role or token, changed.',
      handle: async () => {
        const marks = await store.getMarks(Object.values(SecurityMark));
        return {
          body: {
            policies: marks.get(SecurityMark.policies) ?? null,
            principals: marks.get(SecurityMark.principals) ?? null,
          },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      resource: '/internal/security/policies',
      family: 'openapi',
      summary: 'Every policy: its URN and its dataHubPolicyInfo.',
      handle: async () => {
        const rows = await allLatest(store, 'dataHubPolicyInfo');
        return { body: { policies: rows.map((row) => ({ urn: row.urn, info: row.value })) } };
      },
    }),
    defineRoute({
      method: 'GET',
      resource: '/internal/security/tokens',
      family: 'openapi',
      summary: 'Stored access tokens (their dataHubAccessTokenInfo), all or those of one actor or owner, or one by id.',
      query: z.object({
        id: z.string().min(1).optional(),
        actorUrn: z.string().min(1).optional(),
        ownerUrn: z.string().min(1).optional(),
      }),
      handle: async ({ query }) => {
        const rows =
          query.id === undefined
            ? await allLatest(store, 'dataHubAccessTokenInfo')
            : await store.getLatest([
                { urn: `urn:li:dataHubAccessToken:${query.id}`, aspect: 'dataHubAccessTokenInfo' },
              ]);
        const tokens = rows
          .map((row): Record<string, unknown> => ({
            id: row.urn.slice('urn:li:dataHubAccessToken:'.length),
            ...row.value,
          }))
          .filter(
            (token) =>
              (query.actorUrn === undefined || token['actorUrn'] === query.actorUrn) &&
              (query.ownerUrn === undefined || token['ownerUrn'] === query.ownerUrn),
          );
        return { body: { tokens } };
      },
    }),
    defineRoute({
      method: 'GET',
      resource: '/internal/security/credentials',
      family: 'openapi',
      summary: "A native user's password hash and salt (corpUserCredentials), for checking a login; null when none.",
      query: z.object({ actor: z.string().min(1) }),
      handle: async ({ query }) => {
        const [row] = await store.getLatest([{ urn: corpUserUrn(query.actor), aspect: 'corpUserCredentials' }]);
        const salt = row?.value['salt'];
        const hashedPassword = row?.value['hashedPassword'];
        return {
          body: {
            credentials:
              typeof salt === 'string' && typeof hashedPassword === 'string' ? { salt, hashedPassword } : null,
          },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      resource: '/internal/security/principal',
      family: 'openapi',
      summary:
        'What a user is (whether it exists, is soft-deleted or suspended, its groups and roles), and whether a stored access token exists.',
      query: z.object({ actor: z.string().min(1), token: z.string().min(1).optional() }),
      handle: async ({ query }) => {
        const actor = corpUserUrn(query.actor);
        const aspects = byName(
          await store.getEntity(actor, [
            'corpUserKey',
            'status',
            'corpUserStatus',
            'groupMembership',
            'nativeGroupMembership',
            'roleMembership',
          ]),
        );
        const groups = [
          ...new Set([
            ...strings(aspects.get('groupMembership')?.value['groups']),
            ...strings(aspects.get('nativeGroupMembership')?.value['nativeGroups']),
          ]),
        ];
        const roles = new Set(roleUrns(aspects.get('roleMembership')));
        for (const group of groups) {
          for (const role of roleUrns((await store.getLatest([{ urn: group, aspect: 'roleMembership' }]))[0])) {
            roles.add(role);
          }
        }
        const token =
          query.token === undefined
            ? undefined
            : (await store.getLatest([{ urn: query.token, aspect: 'dataHubAccessTokenKey' }])).length > 0;
        return {
          body: {
            actor,
            exists: aspects.has('corpUserKey'),
            removed: aspects.get('status')?.value['removed'] === true,
            suspended: aspects.get('corpUserStatus')?.value['status'] === 'SUSPENDED',
            groups,
            roles: [...roles],
            ...(token === undefined ? {} : { tokenExists: token }),
          },
        };
      },
    }),
  ];
}

function corpUserUrn(text: string): string {
  try {
    const urn = parseUrn(text);
    if (urn.entityType !== 'corpuser') throw new BadRequestError(`Not a user: ${text}`);
    return urn.toString();
  } catch (error) {
    if (error instanceof InvalidUrnError) throw new BadRequestError(error.message, { cause: error });
    throw error;
  }
}

function byName(rows: readonly StoredAspect[]): Map<string, StoredAspect> {
  return new Map(rows.map((row) => [row.aspect, row]));
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function roleUrns(row: StoredAspect | undefined): string[] {
  return strings(row?.value['roles']);
}
