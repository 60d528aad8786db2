import { z } from 'zod';
import { booleanParam, defineRoute, type Route } from '@strata/http';
import { AUDIT_MAX_PAGE_SIZE, cursorOf, type AuditCursor, type AuditIndex, type AuditQuery } from '@strata/indices';
import { BadRequestError } from '@strata/model';
import { usageEventResult } from '../domain/audit-events';

/** The default window: the day before now. */
const ONE_DAY_MS = 24 * 60 * 60 * 1000;

/**
 * What a scroll id holds: the sort values of the last event returned (`sort`, as DataHub's), and the window of the
 * first page, so that every page of one scroll searches the same window even when the client lets it default to
 * "the day before now" — which moves while the client scrolls.
 */
interface ScrollState {
  readonly sort: AuditCursor;
  readonly pitId: null;
  readonly expirationTime: 0;
  readonly window: readonly [number, number];
}

const scrollState = z.object({
  sort: z.tuple([z.number().int(), z.string(), z.string(), z.string()]),
  window: z.tuple([z.number().int(), z.number().int()]),
});

export function encodeScrollId(state: Omit<ScrollState, 'pitId' | 'expirationTime'>): string {
  const full: ScrollState = { sort: state.sort, pitId: null, expirationTime: 0, window: state.window };
  return Buffer.from(JSON.stringify(full), 'utf8').toString('base64');
}

/** Reads a scroll id; a malformed one is a 400 (DataHub answers 500). */
export function decodeScrollId(scrollId: string): { sort: AuditCursor; window: readonly [number, number] } {
  try {
    const parsed = scrollState.safeParse(JSON.parse(Buffer.from(scrollId, 'base64').toString('utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    // reported below
  }
  throw new BadRequestError(`Invalid scroll Id cannot be mapped: ${scrollId.slice(0, 200)}`);
}

const epochMillis = (name: string) =>
  z.coerce
    .number({ error: `${name} must be epoch milliseconds` })
    .int(`${name} must be epoch milliseconds`)
    .refine((value) => Number.isSafeInteger(value), `${name} must be epoch milliseconds`);

const names = z.array(z.string({ error: 'filter values must be strings' })).nullish();

/**
 * `POST /openapi/v1/events/audit/search`: the audit trail, newest first, filtered and paged as DataHub's
 * `ExternalEventsController` does, with a stable scroll (see the route's description).
 */
export function auditRoutes(index: AuditIndex, now: () => number): Route[] {
  return [
    defineRoute({
      method: 'POST',
      resource: '/openapi/v1/events/audit/search',
      family: 'openapi',
      access: {
        kind: 'privilege',
        // DataHub's ANALYTICS READ, less VIEW_ANALYTICS (every user's by default, and about the UI's charts): the
        // trail names who did what.
        anyOf: [['GET_ANALYTICS_PRIVILEGE'], ['MANAGE_SYSTEM_OPERATIONS']],
        message: '{actor} is unauthorized to READ ANALYTICS.',
        always: true,
      },
      summary: 'Search the audit trail: who did what, and who logged in, newest first (GET_ANALYTICS_PRIVILEGE).',
      description: [
        'The window is `[startTime, endTime)` in epoch milliseconds: `startTime` below 0 (the default) means one day',
        'before now, `endTime` of 0 or below (the default) means now. Filters combine with AND across fields and OR',
        `within a list; an empty or missing list does not narrow. \`size\` is 1 to ${AUDIT_MAX_PAGE_SIZE} (default`,
        '10). Events sort by `timestamp` descending, then event type, actor and event id; `nextScrollId` is given when',
        'the page is full, and the next request passes it as `scrollId` (with the same filters) to continue right after',
        'the last event: each event of the window comes once, and the window of the first page holds for the whole',
        'scroll. `total` counts matching events up to 10,000. `includeRaw=false` leaves out `rawUsageEvent`.',
      ].join(' '),
      query: z.object({
        startTime: epochMillis('startTime').default(-1),
        endTime: epochMillis('endTime').default(-1),
        size: z.coerce
          .number({ error: 'size must be an integer' })
          .int('size must be an integer')
          .min(1, 'size must be at least 1')
          .max(AUDIT_MAX_PAGE_SIZE, `size must be at most ${AUDIT_MAX_PAGE_SIZE}`)
          .default(10),
        scrollId: z.string().min(1, 'scrollId must not be empty').optional(),
        includeRaw: booleanParam().default(true),
      }),
      body: z
        .object({ eventTypes: names, entityTypes: names, aspectTypes: names, actorUrns: names })
        .nullish()
        .transform((body) => body ?? {}),
      example: {
        query: { size: '10' },
        body: {
          eventTypes: ['CreateAccessTokenEvent', 'RevokeAccessTokenEvent'],
          actorUrns: ['urn:li:corpuser:datahub'],
        },
      },
      handle: async ({ query, body }) => {
        const scroll = query.scrollId === undefined ? undefined : decodeScrollId(query.scrollId);
        const time = now();
        const startTime = query.startTime >= 0 ? query.startTime : (scroll?.window[0] ?? time - ONE_DAY_MS);
        const endTime = query.endTime > 0 ? query.endTime : (scroll?.window[1] ?? time);
        const search: AuditQuery = {
          startTime,
          endTime,
          eventTypes: body.eventTypes ?? [],
          entityTypes: body.entityTypes ?? [],
          aspectTypes: body.aspectTypes ?? [],
          actorUrns: body.actorUrns ?? [],
          size: query.size,
          ...(scroll === undefined ? {} : { after: scroll.sort }),
        };
        const page = startTime >= endTime ? { events: [], total: 0 } : await index.search(search);
        const last = page.events.at(-1);
        return {
          body: {
            nextScrollId:
              page.events.length === query.size && last !== undefined
                ? encodeScrollId({ sort: cursorOf(last), window: [startTime, endTime] })
                : null,
            count: page.events.length,
            total: page.total,
            usageEvents: page.events.map((event) => usageEventResult(event, query.includeRaw)),
          },
        };
      },
    }),
  ];
}
