import { z } from 'zod';
import { UnavailableError } from '@strata/model';
import { originHeaders, type EventSerde, type TopicNames } from '@strata/events';
import type { MessageLog } from '@strata/log';
import { defineRoute, type Route } from '@strata/http';
import { platformEventRecord } from '../domain/platform-events';

export interface PlatformRouteOptions {
  readonly log: MessageLog;
  readonly serde: EventSerde;
  readonly topics: Pick<TopicNames, 'platformEvent'>;
}

/** DataHub's `PlatformEvent`, as Rest.li JSON writes it. */
const platformEvent = z.object(
  {
    header: z.object(
      { timestampMillis: z.number().int('header.timestampMillis must be an integer') },
      {
        error: 'event.header must be a PlatformEventHeader ({timestampMillis})',
      },
    ),
    name: z.string({ error: 'event.name must be a string' }),
    payload: z.object(
      {
        value: z.string({ error: 'event.payload.value must be a string (the payload’s bytes)' }),
        contentType: z.string({ error: 'event.payload.contentType must be a string' }),
      },
      { error: 'event.payload must be a GenericPayload ({value, contentType})' },
    ),
  },
  { error: 'event must be a PlatformEvent ({header, name, payload})' },
);

/**
 * `POST /platform?action=producePlatformEvent`: publishes a platform event on `PlatformEvent_v1`, keyed by `key`, or by
 * `name` without one (as DataHub keys it), with the request's origin in its headers; answers (no body) once the log
 * holds it. The events API (`GET /openapi/v1/events/poll`) and any consumer of the topic read it.
 */
export function platformRoutes(options: PlatformRouteOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      resource: '/platform',
      action: 'producePlatformEvent',
      family: 'restli',
      access: {
        kind: 'privilege',
        anyOf: [['PRODUCE_PLATFORM_EVENT_PRIVILEGE'], ['MANAGE_SYSTEM_OPERATIONS']],
        message: 'User is unauthorized to produce platform events.',
      },
      summary: 'Publish a platform event (an entityChangeEvent…) on PlatformEvent_v1.',
      description:
        'The event is written as DataHub’s `PlatformEvent` record, keyed by `key`, or by `name` when there is none. ' +
        '`event.payload.value` is its payload’s bytes as Rest.li writes bytes: one character (U+0000 to U+00FF) per ' +
        'byte, which a JSON text in ASCII or Latin-1 is as it stands.',
      body: z.object({
        name: z.string({ error: 'name must be a string' }).min(1, 'name must not be empty'),
        key: z.string({ error: 'key must be a string' }).nullish(),
        event: platformEvent,
      }),
      example: {
        body: {
          name: 'entityChangeEvent',
          key: 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)',
          event: {
            header: { timestampMillis: 1_700_000_000_000 },
            name: 'entityChangeEvent',
            payload: {
              value:
                '{"entityType":"dataset","entityUrn":"urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)","category":"TAG","operation":"ADD","modifier":"urn:li:tag:pii","auditStamp":{"time":1700000000000,"actor":"urn:li:corpuser:datahub"},"version":0}',
              contentType: 'application/json',
            },
          },
        },
      },
      handle: async ({ body, context }) => {
        const record = platformEventRecord(body.event);
        try {
          await options.log.publish([
            {
              topic: options.topics.platformEvent,
              key: body.key ?? body.name,
              value: options.serde.platformEvent.encode(record),
              headers: originHeaders(context),
            },
          ]);
        } catch (error) {
          throw new UnavailableError('The message log is unavailable: the event was not published. Retry it.', {
            cause: error,
          });
        }
        return {};
      },
    }),
  ];
}
