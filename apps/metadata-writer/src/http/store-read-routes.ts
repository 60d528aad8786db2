import { z } from 'zod';
import { defineRoute, restliListParam, type Route } from '@strata/http';
import { BadRequestError, SWITCH_MARKS } from '@strata/model';
import type { AspectStore } from '@strata/store';
import { allLatest } from '../reads/latest-values';

/**
 * Reads of the primary store the other services compose what they need from, under `/internal/` (never forwarded to
 * clients, never documented): marks (values the writer sets in the same commit as the changes they stand for, and
 * switches another service sets directly: the gateways' write switch), and every latest value of an aspect the store
 * lists. Straight from the store, so that a change answered is a change seen. The writer knows nothing of what they
 * mean: the gateway reads its security state and its write switch through them (docs/adr/0020), the operations
 * service its metadata tests.
 */
export function storeReadRoutes(store: AspectStore): Route[] {
  return [
    defineRoute({
      method: 'GET',
      resource: '/internal/marks',
      family: 'openapi',
      access: { kind: 'internal' },
      summary: 'The values of the named marks (null for a mark never set).',
      query: z.object({ name: restliListParam().pipe(z.array(z.string()).min(1).max(100)) }),
      handle: async ({ query }) => {
        const marks = await store.getMarks(query.name);
        return { body: { marks: Object.fromEntries(query.name.map((name) => [name, marks.get(name) ?? null])) } };
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/internal/marks',
      family: 'openapi',
      access: { kind: 'internal' },
      summary: 'Sets a switch (a mark another service keeps here: a gateway’s) to a value, in a commit of its own.',
      body: z.object({ name: z.string().min(1).max(200), value: z.string().max(1_000) }),
      handle: async ({ body }) => {
        // Only switches: the marks the writer sets with the changes they stand for (the security marks) are no one
        // else's to set, as a gateway trusts its caches while they hold.
        if (!SWITCH_MARKS.includes(body.name)) throw new BadRequestError(`${body.name} is not a switch`);
        await store.commit({
          mutations: [{ kind: 'setMark', name: body.name, value: body.value }],
          outbox: [],
          appliedProposalIds: [],
        });
        return { body: { name: body.name, value: body.value } };
      },
    }),
    defineRoute({
      method: 'GET',
      resource: '/internal/listed',
      family: 'openapi',
      access: { kind: 'internal' },
      summary: 'Every latest value of a listed aspect, by URN.',
      query: z.object({ aspect: z.string().min(1) }),
      handle: async ({ query }) => {
        if (!store.listsAspect(query.aspect)) throw new BadRequestError(`${query.aspect} is not a listed aspect`);
        const rows = await allLatest(store, query.aspect);
        return { body: { values: rows.map((row) => ({ urn: row.urn, version: row.version, value: row.value })) } };
      },
    }),
  ];
}
