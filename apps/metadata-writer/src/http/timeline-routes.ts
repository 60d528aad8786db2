import { z } from 'zod';
import { defineRoute, type Route } from '@strata/http';
import { BadRequestError } from '@strata/model';
import { parseCategories, type ChangeEvent, type ChangeTransaction } from '../domain/timeline/change-event';
import type { TimelineReader } from '../reads/timeline-reader';

/** A value Spring reads as a `long`: an optional minus and digits, within what a double holds exactly. */
function epochMillisParam(name: string, fallback: number) {
  return z
    .string()
    .optional()
    .transform((text, context) => {
      if (text === undefined || text === '') return fallback;
      const value = Number(text);
      if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(value)) {
        context.addIssue({ code: 'custom', message: `'${text}' is not a whole number of milliseconds` });
        return z.NEVER;
      }
      return value;
    })
    .describe(name);
}

/** A boolean as Spring reads one: true/false, on/off, yes/no, 1/0, in any case (the CLI sends `True`). */
const springBoolean = z
  .string()
  .optional()
  .transform((text, context) => {
    const value = text?.trim().toLowerCase();
    if (value === undefined || value === '') return false;
    if (['true', 'on', 'yes', '1'].includes(value)) return true;
    if (['false', 'off', 'no', '0'].includes(value)) return false;
    context.addIssue({ code: 'custom', message: `'${text ?? ''}' is not a boolean` });
    return z.NEVER;
  });

const timelineQuery = z.object({
  categories: z
    .preprocess(
      (value): unknown[] => (Array.isArray(value) ? (value as unknown[]) : value === undefined ? [] : [value]),
      z.array(z.string()),
    )
    .describe(
      'Change categories, comma-separated and/or repeated: TAG, OWNERSHIP (or OWNER), GLOSSARY_TERM, TECHNICAL_SCHEMA, DOCUMENTATION, DOMAIN, DEPRECATION, LIFECYCLE, RUN, BUSINESS_ATTRIBUTE, STRUCTURED_PROPERTY, APPLICATION, PARENT, RELATED_ENTITIES, ASSET_MEMBERSHIP.',
    ),
  startTime: epochMillisParam(
    'Start of the window, epoch milliseconds; -1 (the default) is a week before its end.',
    -1,
  ),
  endTime: epochMillisParam('End of the window (exclusive), epoch milliseconds; 0 (the default) is now.', 0),
  raw: springBoolean.describe("Include each transaction's raw diff (RFC 6902), default false."),
});

/** DataHub's timeline: `GET /openapi/timeline/v1/{urn}`, what `datahub timeline` calls. */
export function timelineRoutes(reader: TimelineReader): Route[] {
  return [
    defineRoute({
      method: 'GET',
      resource: '/openapi/timeline/v1',
      key: { name: 'urn', description: 'Entity URN, raw or percent-encoded.' },
      family: 'openapi',
      access: {
        kind: 'resource',
        group: 'ENTITY',
        operations: ['READ'],
        resource: { in: 'key' },
        message: '{actor} is unauthorized to view entity {resource}',
      },
      summary: "The history of an entity's changes, by category, with semantic versions.",
      description:
        "Change transactions computed from the entity's stored aspect versions written in the window, oldest first: each instant a versioned aspect feeding the requested categories changed, with its change events, semantic version and version stamp. At most 5,000 aspect versions are read per request; past that the answer covers the newest part of the window and says so in a `Warning` header.",
      query: timelineQuery,
      example: { query: { categories: 'TAG,OWNERSHIP,TECHNICAL_SCHEMA' } },
      handle: async ({ query, key }) => {
        if (key === undefined || key === '') throw new BadRequestError('The URN is missing from the path');
        const result = await reader.read({
          urn: key,
          categories: parseCategories(query.categories),
          startTime: query.startTime,
          endTime: query.endTime,
          raw: query.raw,
        });
        return {
          body: result.transactions.map(transactionJson),
          ...(result.coveredFrom === undefined
            ? {}
            : {
                headers: {
                  Warning: `199 strata "The window holds more aspect versions than one request reads: the timeline covers it from ${result.coveredFrom} (epoch milliseconds) on"`,
                },
              }),
        };
      },
    }),
  ];
}

/** A transaction in DataHub's JSON: its members in DataHub's order, absent ones left out. */
function transactionJson(transaction: ChangeTransaction): Record<string, unknown> {
  return {
    timestamp: transaction.timestamp,
    actor: transaction.actor,
    semVer: transaction.semVer,
    semVerChange: transaction.semVerChange,
    changeEvents: transaction.changeEvents.map(eventJson),
    ...(transaction.rawDiff === undefined ? {} : { rawDiff: transaction.rawDiff }),
    versionStamp: transaction.versionStamp,
  };
}

function eventJson(event: ChangeEvent): Record<string, unknown> {
  return {
    entityUrn: event.entityUrn,
    category: event.category,
    operation: event.operation,
    ...(event.modifier === undefined ? {} : { modifier: event.modifier }),
    ...(event.parameters === undefined ? {} : { parameters: event.parameters }),
    ...(event.auditStamp === undefined ? {} : { auditStamp: event.auditStamp }),
    ...(event.semVerChange === undefined ? {} : { semVerChange: event.semVerChange }),
    ...(event.description === undefined ? {} : { description: event.description }),
  };
}
