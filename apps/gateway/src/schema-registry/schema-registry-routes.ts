import { Type } from 'avsc';
import { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '@strata/model';
import { schemaIdOf, type EventSerde, type TopicNames } from '@strata/events';
import { defineRoute, type Route, type RouteDefinition } from '@strata/http';

/** Where DataHub's GMS serves its schema registry; Confluent clients take it as their base URL. */
export const schemaRegistryBase = '/schema-registry/api';

interface Subject {
  readonly name: string;
  readonly id: number;
  readonly type: Type;
}

const compatibilityLevels = [
  'NONE',
  'BACKWARD',
  'BACKWARD_TRANSITIVE',
  'FORWARD',
  'FORWARD_TRANSITIVE',
  'FULL',
  'FULL_TRANSITIVE',
] as const;

/** Errors carry Confluent's `error_code`, which its clients branch on. */
function withDetail<E extends Error>(error: E, detailCode: number): E {
  return Object.assign(error, { detailCode });
}

/**
 * A Confluent-compatible schema registry for Strata's topics, so that standard Kafka producers (for instance
 * `@kafkajs/confluent-schema-registry`) can look up, register and encode with Strata's schemas.
 *
 * One subject per topic, by Confluent's TopicNameStrategy (`<topic>-value`), each holding one version: Strata's schema.
 * Registering a schema equal to it in Avro's parsing canonical form (docs and custom attributes aside) returns its id;
 * any other schema is refused as incompatible, because Strata's consumers read only their own schemas. Ids are the
 * fingerprint-derived ids every Strata process frames records with, so nothing needs to be stored.
 */
export function schemaRegistryRoutes(serde: EventSerde, topics: TopicNames): Route[] {
  const subject = (topic: string, codec: { schemaId: number; type: Type }): Subject => ({
    name: `${topic}-value`,
    id: codec.schemaId,
    type: codec.type,
  });
  const subjects = [
    subject(topics.metadataChangeProposal, serde.proposal),
    subject(topics.failedMetadataChangeProposal, serde.failedProposal),
    subject(topics.metadataChangeLogVersioned, serde.changeLog),
    subject(topics.metadataChangeLogTimeseries, serde.changeLog),
    subject(topics.metadataChangeProposalOutcome, serde.outcome),
  ];
  const bySubject = new Map(subjects.map((entry) => [entry.name, entry]));
  /** Levels clients set; kept per process only, since with one version per subject every level holds anyway. */
  const subjectLevels = new Map<string, string>();
  const findSubject = (name: string | undefined): Subject => {
    const found = name === undefined ? undefined : bySubject.get(name);
    if (!found) throw withDetail(new NotFoundError(`Subject '${name ?? ''}' not found.`), 40401);
    return found;
  };
  const checkVersion = (version: string | undefined): void => {
    if (version === 'latest' || version === '1' || version === '-1') return;
    if (version !== undefined && /^\d+$/.test(version))
      throw withDetail(new NotFoundError(`Version ${version} not found.`), 40402);
    throw withDetail(
      new ValidationError(
        `The specified version '${version ?? ''}' is not a valid version id. Allowed values are between [1, 2^31-1] and the string "latest"`,
      ),
      42202,
    );
  };
  const schemaText = (type: Type) => JSON.stringify(type.schema({ exportAttrs: true }));
  const versionBody = (entry: Subject) => ({
    subject: entry.name,
    version: 1,
    id: entry.id,
    schemaType: 'AVRO',
    schema: schemaText(entry.type),
  });
  const schemaInput = z.object({ schema: z.string().min(1), schemaType: z.enum(['AVRO']).optional() });
  /** The subject's schema id when `schema` is the same schema in canonical form. */
  const matching = (entry: Subject, schema: string): number | undefined => {
    let type: Type;
    try {
      type = Type.forSchema(JSON.parse(schema) as Parameters<typeof Type.forSchema>[0]);
    } catch (error) {
      throw withDetail(
        new ValidationError(`Invalid schema: ${error instanceof Error ? error.message : String(error)}`),
        42201,
      );
    }
    return schemaIdOf(type) === entry.id ? entry.id : undefined;
  };

  // Open, as DataHub's: Kafka producers register and look up schemas without credentials. It serves Strata's own
  // schemas only, and a subject's compatibility level changes nothing that is stored.
  const route = <Query extends z.ZodType = z.ZodUnknown, Body extends z.ZodType = z.ZodUnknown>(
    definition: Omit<RouteDefinition<Query, Body>, 'family' | 'access'>,
  ): Route => defineRoute<Query, Body>({ ...definition, family: 'schema-registry', access: { kind: 'open' } });
  return [
    route({
      method: 'GET',
      resource: `${schemaRegistryBase}/subjects`,
      summary: 'Subjects: one per Strata topic, `<topic>-value`.',
      handle: () => Promise.resolve({ body: subjects.map((entry) => entry.name) }),
    }),
    route({
      method: 'GET',
      resource: `${schemaRegistryBase}/subjects/:subject/versions`,
      summary: "A subject's versions.",
      handle: ({ params }) => {
        findSubject(params['subject']);
        return Promise.resolve({ body: [1] });
      },
    }),
    route({
      method: 'GET',
      resource: `${schemaRegistryBase}/subjects/:subject/versions/:version`,
      summary: 'One version of a subject (`latest` works).',
      handle: ({ params }) => {
        const entry = findSubject(params['subject']);
        checkVersion(params['version']);
        return Promise.resolve({ body: versionBody(entry) });
      },
    }),
    route({
      method: 'GET',
      resource: `${schemaRegistryBase}/subjects/:subject/versions/:version/schema`,
      summary: 'The schema of one version, unwrapped.',
      handle: ({ params }) => {
        const entry = findSubject(params['subject']);
        checkVersion(params['version']);
        return Promise.resolve({ body: entry.type.schema({ exportAttrs: true }) });
      },
    }),
    route({
      method: 'POST',
      resource: `${schemaRegistryBase}/subjects/:subject/versions`,
      summary: "Registers a schema: Strata's own schema for the subject returns its id; any other is incompatible.",
      body: schemaInput,
      handle: ({ params, body }) => {
        const entry = findSubject(params['subject']);
        if (matching(entry, body.schema) === undefined) {
          throw withDetail(
            new ConflictError(
              `Schema being registered is incompatible with an earlier schema for subject "${entry.name}": Strata accepts only its own schema here (GET ${schemaRegistryBase}/subjects/${entry.name}/versions/latest)`,
            ),
            409,
          );
        }
        return Promise.resolve({ body: { id: entry.id } });
      },
    }),
    route({
      method: 'POST',
      resource: `${schemaRegistryBase}/subjects/:subject`,
      summary: 'Looks a schema up under a subject.',
      body: schemaInput,
      handle: ({ params, body }) => {
        const entry = findSubject(params['subject']);
        if (matching(entry, body.schema) === undefined) throw withDetail(new NotFoundError('Schema not found'), 40403);
        return Promise.resolve({ body: versionBody(entry) });
      },
    }),
    route({
      method: 'GET',
      resource: `${schemaRegistryBase}/schemas/ids/:id`,
      summary: 'A schema by id.',
      handle: ({ params }) => {
        const entry = subjects.find((candidate) => String(candidate.id) === params['id']);
        if (!entry) throw withDetail(new NotFoundError(`Schema ${params['id'] ?? ''} not found`), 40403);
        return Promise.resolve({ body: { schemaType: 'AVRO', schema: schemaText(entry.type) } });
      },
    }),
    route({
      method: 'GET',
      resource: `${schemaRegistryBase}/schemas/ids/:id/versions`,
      summary: 'The subjects and versions holding a schema.',
      handle: ({ params }) => {
        const holders = subjects.filter((candidate) => String(candidate.id) === params['id']);
        if (holders.length === 0) throw withDetail(new NotFoundError(`Schema ${params['id'] ?? ''} not found`), 40403);
        return Promise.resolve({ body: holders.map((entry) => ({ subject: entry.name, version: 1 })) });
      },
    }),
    route({
      method: 'GET',
      resource: `${schemaRegistryBase}/schemas/types`,
      summary: 'Schema types supported.',
      handle: () => Promise.resolve({ body: ['AVRO'] }),
    }),
    route({
      method: 'GET',
      resource: `${schemaRegistryBase}/config`,
      summary: "Global compatibility level (Confluent's default).",
      handle: () => Promise.resolve({ body: { compatibilityLevel: 'BACKWARD' } }),
    }),
    route({
      method: 'GET',
      resource: `${schemaRegistryBase}/config/:subject`,
      summary: "A subject's compatibility level, once one was set.",
      handle: ({ params }) => {
        const entry = findSubject(params['subject']);
        const level = subjectLevels.get(entry.name);
        if (level === undefined) {
          throw withDetail(
            new NotFoundError(`Subject '${entry.name}' does not have subject-level compatibility configured`),
            40408,
          );
        }
        return Promise.resolve({ body: { compatibilityLevel: level } });
      },
    }),
    route({
      method: 'PUT',
      resource: `${schemaRegistryBase}/config/:subject`,
      summary: "Sets a subject's compatibility level (every level holds: a subject has one version).",
      body: z.object({ compatibility: z.enum(compatibilityLevels) }),
      handle: ({ params, body }) => {
        const entry = findSubject(params['subject']);
        subjectLevels.set(entry.name, body.compatibility);
        return Promise.resolve({ body: { compatibility: body.compatibility } });
      },
    }),
  ];
}
