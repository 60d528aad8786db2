import { z } from 'zod';
import { BadRequestError, UnavailableError } from '@strata/model';
import { avroJsonOf, type EventCodec, type EventSerde, type TopicNames } from '@strata/events';
import type { LogRecord, MessageLog, TopicRead } from '@strata/log';
import { defineRoute, type RequestContext, type Route } from '@strata/http';
import { decodeOffsetId, encodeOffsetId } from '../domain/event-offsets';

/** Checks that the caller holds a platform privilege (with authentication on), throwing the 401 or 403. */
export type PrivilegeCheck = (context: RequestContext, privilege: string, message: string) => Promise<void>;

export interface EventsRouteOptions {
  readonly log: MessageLog;
  readonly serde: EventSerde;
  readonly topics: Pick<TopicNames, 'platformEvent' | 'metadataChangeLogVersioned' | 'metadataChangeLogTimeseries'>;
  readonly now: () => number;
  /** Absent: nothing is checked (a gateway without authentication's parts). */
  readonly requirePrivilege?: PrivilegeCheck;
}

/** DataHub's limits of a poll: at most 5,000 events, waiting at most 10 seconds; by default 100 and 5 seconds. */
export const MAX_POLL_LIMIT = 5000;
export const DEFAULT_POLL_LIMIT = 100;
export const MAX_POLL_TIMEOUT_SECONDS = 10;
export const DEFAULT_POLL_TIMEOUT_SECONDS = 5;

const DAY = 86_400_000;

const integer = (name: string) =>
  z
    .string()
    .regex(/^-?[0-9]{1,9}$/, `${name} must be an integer`)
    .transform(Number);

/**
 * `GET /openapi/v1/events/poll`: DataHub's events API, served from Strata's own log. A client follows a topic —
 * `PlatformEvent_v1` (platform events), `MetadataChangeLog_Versioned_v1` or `MetadataChangeLog_Timeseries_v1` (change
 * logs), by DataHub's names, read wherever the deployment's topics are — passing back the `offsetId` each poll answers
 * (DataHub's: Base64 of `{"<topic>-<partition>": offset}`). Without one, it starts at the end, or `lookbackWindowDays`
 * back. A poll answers as soon as there are events (at most `limit`), or empty once `pollTimeoutSeconds` passed; the
 * wait never holds the event loop. Each event's `value` is the record in Avro's JSON encoding, as DataHub answers it.
 */
export function eventsRoutes(options: EventsRouteOptions): Route[] {
  const topics: Readonly<Record<string, { physical: string; codec: EventCodec<unknown>; privilege: string }>> = {
    PlatformEvent_v1: {
      physical: options.topics.platformEvent,
      codec: options.serde.platformEvent,
      privilege: 'GET_PLATFORM_EVENTS',
    },
    MetadataChangeLog_Versioned_v1: {
      physical: options.topics.metadataChangeLogVersioned,
      codec: options.serde.changeLog,
      privilege: 'GET_METADATA_CHANGE_LOG_EVENTS',
    },
    MetadataChangeLog_Timeseries_v1: {
      physical: options.topics.metadataChangeLogTimeseries,
      codec: options.serde.changeLog,
      privilege: 'GET_METADATA_CHANGE_LOG_EVENTS',
    },
  };
  return [
    defineRoute({
      method: 'GET',
      resource: '/openapi/v1/events/poll',
      family: 'openapi',
      access: {
        kind: 'privilege',
        // The topic decides which: the handler asks for that one.
        anyOf: [['GET_PLATFORM_EVENTS'], ['GET_METADATA_CHANGE_LOG_EVENTS']],
        message: '{actor} is unauthorized to poll events.',
      },
      summary: 'Poll the events of a topic from an offset: platform events or change logs.',
      description:
        '`topic`: PlatformEvent_v1 (needs GET_PLATFORM_EVENTS), MetadataChangeLog_Versioned_v1 or ' +
        'MetadataChangeLog_Timeseries_v1 (GET_METADATA_CHANGE_LOG_EVENTS). `offsetId`: the one the previous poll ' +
        'answered; without it the poll starts at the end of the topic, or `lookbackWindowDays` back. `limit`: at most ' +
        `this many events (default ${DEFAULT_POLL_LIMIT}, at most ${MAX_POLL_LIMIT}). \`pollTimeoutSeconds\`: how long ` +
        `to wait for a first event (default ${DEFAULT_POLL_TIMEOUT_SECONDS}, at most ${MAX_POLL_TIMEOUT_SECONDS}). ` +
        'Answers `{offsetId, count, events: [{value, contentType}]}`; a record that does not decode is passed over.',
      query: z.object({
        topic: z.string({ error: "Missing required query parameter 'topic'" }),
        offsetId: z.string().optional(),
        limit: integer('limit').optional(),
        pollTimeoutSeconds: integer('pollTimeoutSeconds').optional(),
        lookbackWindowDays: integer('lookbackWindowDays').optional(),
      }),
      example: { query: { topic: 'PlatformEvent_v1', limit: '100', pollTimeoutSeconds: '5' } },
      handle: async ({ query, context }) => {
        const topic = topics[query.topic];
        if (topic === undefined || !Object.hasOwn(topics, query.topic)) {
          throw new BadRequestError(`Unsupported topic: ${query.topic} (one of ${Object.keys(topics).join(', ')})`);
        }
        if (query.limit !== undefined && query.limit < 1) throw new BadRequestError('limit must be at least 1');
        if (query.pollTimeoutSeconds !== undefined && query.pollTimeoutSeconds < 0) {
          throw new BadRequestError('pollTimeoutSeconds must not be negative');
        }
        await options.requirePrivilege?.(
          context,
          topic.privilege,
          `${context.actor} is unauthorized to get events of ${query.topic}.`,
        );
        const limit = Math.min(query.limit ?? DEFAULT_POLL_LIMIT, MAX_POLL_LIMIT);
        const timeout = Math.min(query.pollTimeoutSeconds ?? DEFAULT_POLL_TIMEOUT_SECONDS, MAX_POLL_TIMEOUT_SECONDS);
        const days = query.lookbackWindowDays ?? 0;
        const from: TopicRead['from'] =
          query.offsetId !== undefined && query.offsetId !== ''
            ? { kind: 'offsets', offsets: decodeOffsetId(query.offsetId, topic.physical) }
            : days > 0
              ? { kind: 'time', timestamp: options.now() - days * DAY }
              : { kind: 'end' };
        if (options.log.readTopic === undefined) throw new UnavailableError('This log cannot be polled');
        let result;
        try {
          result = await options.log.readTopic({ topic: topic.physical, from, limit, maxWaitMs: timeout * 1000 });
        } catch (error) {
          throw new UnavailableError('The message log is unavailable: the poll found nothing. Retry it.', {
            cause: error,
          });
        }
        const events = result.records.flatMap((record) => eventOf(topic.codec, record));
        return {
          body: {
            offsetId: encodeOffsetId(topic.physical, result.next),
            count: events.length,
            events,
          },
        };
      },
    }),
  ];
}

/** A record as the events API answers it: its Avro JSON, or nothing when it does not decode with the topic's schema. */
function eventOf(codec: EventCodec<unknown>, record: LogRecord): { value: string; contentType: string }[] {
  let decoded: unknown;
  try {
    decoded = codec.decode(record.value);
  } catch {
    // Another producer's schema id (DataHub's own registry) on the same structure still reads.
    try {
      decoded = record.value[0] === 0 ? codec.type.fromBuffer(record.value.subarray(5)) : undefined;
    } catch {
      decoded = undefined;
    }
  }
  if (decoded === undefined) return [];
  return [{ value: JSON.stringify(avroJsonOf(codec.type, decoded)), contentType: 'application/json' }];
}
