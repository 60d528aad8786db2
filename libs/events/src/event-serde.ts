import { Type, types } from 'avsc';
import type { SchemaFiles } from '@strata/schemas';
import { BadRequestError, checkNestingDepth, ValidationError } from '@strata/model';
import type {
  FailedMetadataChangeProposal,
  MetadataChangeLog,
  MetadataChangeProposal,
  MetadataChangeProposalOutcome,
  MetadataIndexAcknowledgement,
  PlatformEvent,
  SystemMetadata,
} from './generated/records';

/** A record that is neither Confluent-framed Avro of a known schema nor a JSON proposal. */
export class UndecodableRecordError extends BadRequestError {}

/** Encodes and decodes one record type in Confluent's wire format: magic byte 0, 4-byte schema id, Avro binary. */
export interface EventCodec<T> {
  /** Full name of the record, e.g. `com.linkedin.pegasus2avro.mxe.MetadataChangeProposal`. */
  readonly recordName: string;
  /** The id this schema is framed with (stable: derived from the schema's fingerprint). */
  readonly schemaId: number;
  readonly type: Type;
  encode(value: T): Buffer;
  /** Decodes a framed record. Throws {@link UndecodableRecordError} naming what is wrong. */
  decode(buffer: Buffer): T;
}

export interface EventSerde {
  readonly proposal: EventCodec<MetadataChangeProposal> & {
    /**
     * Decodes a proposal as the writer receives it from any producer: Confluent-framed Avro, or a plain JSON object in
     * DataHub's proposal shape (`aspect.value` a JSON string or object). Throws {@link UndecodableRecordError}.
     */
    decodeAny(buffer: Buffer): MetadataChangeProposal;
  };
  readonly changeLog: EventCodec<MetadataChangeLog>;
  readonly failedProposal: EventCodec<FailedMetadataChangeProposal>;
  readonly outcome: EventCodec<MetadataChangeProposalOutcome>;
  readonly indexAcknowledgement: EventCodec<MetadataIndexAcknowledgement>;
  /** DataHub's platform events (`PlatformEvent_v1`). */
  readonly platformEvent: EventCodec<PlatformEvent>;
  /** System metadata as stored (JSON) in record form: schema fields only, defaults filled. */
  toSystemMetadataRecord(json: Readonly<Record<string, unknown>>): SystemMetadata;
}

const MAGIC_BYTE = 0;
const HEADER_BYTES = 5;

/** Builds the serde from `schemas/events` (pass `readSchemas()` from `@strata/schemas`). */
export function createEventSerde(files: SchemaFiles): EventSerde {
  const registry = loadEventTypes(files);
  const codec = <T>(recordName: string): EventCodec<T> => {
    const type = registry[recordName];
    if (!type) throw new Error(`schemas/events defines no record ${recordName}`);
    const schemaId = schemaIdOf(type);
    return {
      recordName,
      schemaId,
      type,
      encode: (value) => frame(schemaId, type.toBuffer(value)),
      decode: (buffer) => decodeFramed(buffer, schemaId, type) as T,
    };
  };
  const namedRecord = (name: string): types.RecordType => {
    const type = registry[name];
    if (!(type instanceof types.RecordType)) throw new Error(`schemas/events defines no record ${name}`);
    return type;
  };
  const proposal = codec<MetadataChangeProposal>('com.linkedin.pegasus2avro.mxe.MetadataChangeProposal');
  const proposalType = namedRecord('com.linkedin.pegasus2avro.mxe.MetadataChangeProposal');
  return {
    proposal: {
      ...proposal,
      decodeAny: (buffer) =>
        buffer[0] === MAGIC_BYTE ? proposal.decode(buffer) : proposalFromJson(buffer, proposalType),
    },
    changeLog: codec('com.linkedin.pegasus2avro.mxe.MetadataChangeLog'),
    failedProposal: codec('com.linkedin.pegasus2avro.mxe.FailedMetadataChangeProposal'),
    outcome: codec('io.strata.mxe.MetadataChangeProposalOutcome'),
    indexAcknowledgement: codec('io.strata.mxe.MetadataIndexAcknowledgement'),
    platformEvent: codec('com.linkedin.pegasus2avro.mxe.PlatformEvent'),
    toSystemMetadataRecord: (json) =>
      withDefaults(namedRecord('com.linkedin.pegasus2avro.mxe.SystemMetadata'), json) as unknown as SystemMetadata,
  };
}

/**
 * Schema ids are the first 31 bits of the SHA-256 fingerprint of the schema's parsing canonical form, so every process
 * derives the same id for the same schema without coordination, a producer's copy of the schema (docs and custom
 * attributes aside) has the same id, and a structurally changed schema gets a new one.
 */
export function schemaIdOf(type: Type): number {
  return type.fingerprint('sha256').readUInt32BE(0) & 0x7fffffff;
}

function frame(schemaId: number, body: Buffer): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt8(MAGIC_BYTE, 0);
  header.writeUInt32BE(schemaId, 1);
  return Buffer.concat([header, body]);
}

function decodeFramed(buffer: Buffer, schemaId: number, type: Type): unknown {
  if (buffer.length < HEADER_BYTES || buffer[0] !== MAGIC_BYTE) {
    throw new UndecodableRecordError('Record is not Confluent-framed Avro (no magic byte 0 and schema id)');
  }
  const id = buffer.readUInt32BE(1);
  if (id !== schemaId) {
    throw new UndecodableRecordError(
      `Record has schema id ${id}; ${type.name ?? 'this record'} is schema id ${schemaId}`,
    );
  }
  try {
    return type.fromBuffer(buffer.subarray(HEADER_BYTES));
  } catch (error) {
    throw new UndecodableRecordError(`Record does not decode as ${type.name ?? 'Avro'}: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

/** Reads a JSON proposal from a simple producer into the Avro record form, filling schema defaults. */
function proposalFromJson(buffer: Buffer, type: types.RecordType): MetadataChangeProposal {
  let json: unknown;
  try {
    json = JSON.parse(buffer.toString('utf8'));
  } catch (error) {
    throw new UndecodableRecordError(
      `Record is neither Confluent-framed Avro (magic byte 0) nor JSON: ${messageOf(error)}`,
      { cause: error },
    );
  }
  if (!isObject(json)) throw new UndecodableRecordError('A JSON proposal must be a JSON object');
  // Before the aspect value is serialized again below: JSON.stringify overflows the stack a few thousand levels deep.
  try {
    checkNestingDepth(json, 'A JSON proposal');
  } catch (error) {
    if (error instanceof ValidationError) throw new UndecodableRecordError(error.message, { cause: error });
    throw error;
  }
  const aspect = json['aspect'];
  const record = withDefaults(type, {
    ...json,
    aspect: isObject(aspect)
      ? { contentType: 'application/json', ...aspect, value: aspectBytes(aspect['value']) }
      : aspect,
  });
  const problems: string[] = [];
  type.isValid(record, {
    errorHook: (path, value: unknown) => {
      problems.push(`${path.join('.') || '(record)'}: ${value === undefined ? 'missing' : JSON.stringify(value)}`);
    },
  });
  if (problems.length > 0) {
    throw new UndecodableRecordError(`JSON proposal does not match MetadataChangeProposal: ${problems.join('; ')}`);
  }
  return record as unknown as MetadataChangeProposal;
}

function aspectBytes(value: unknown): unknown {
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  if (isObject(value)) return Buffer.from(JSON.stringify(value), 'utf8');
  return value;
}

/** Copies a JSON object into a record's shape: missing fields take their schema default, nested records likewise. */
function withDefaults(type: types.RecordType, json: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const field of type.fields) {
    // Own fields only: a client's unknown `__proto__` field is data, and no field may be read through it.
    const given = Object.hasOwn(json, field.name) ? json[field.name] : undefined;
    if (given === undefined) {
      record[field.name] = field.defaultValue() as unknown;
      continue;
    }
    const recordType = recordTypeOf(field.type);
    record[field.name] = recordType && isObject(given) ? withDefaults(recordType, given) : given;
  }
  return record;
}

/** The record type of a field typed as a record or as `["null", record]`. */
function recordTypeOf(type: Type): types.RecordType | undefined {
  if (type instanceof types.RecordType) return type;
  if (type instanceof types.UnwrappedUnionType) {
    return type.types.find((member): member is types.RecordType => member instanceof types.RecordType);
  }
  return undefined;
}

/** Loads every file of `schemas/events` into one avsc registry, in whatever order their references allow. */
function loadEventTypes(files: SchemaFiles): Record<string, Type> {
  const registry: Record<string, Type> = {};
  let pending = [...files.events];
  while (pending.length > 0) {
    const failed: typeof pending = [];
    const errors: string[] = [];
    for (const file of pending) {
      // Parse against a copy: a file that fails half-way must not leave its nested names registered.
      const attempt = { ...registry };
      try {
        Type.forSchema(file.schema as Parameters<typeof Type.forSchema>[0], {
          registry: attempt,
          wrapUnions: 'auto',
          typeHook: ownKeysMaps,
        });
        Object.assign(registry, attempt);
      } catch (error) {
        failed.push(file);
        errors.push(`${file.file}: ${messageOf(error)}`);
      }
    }
    if (failed.length === pending.length) throw new Error(`Cannot load event schemas:\n${errors.join('\n')}`);
    pending = failed;
  }
  return registry;
}

/** The part of avsc's internal reader interface (`Tap`) that a map's block encoding needs. */
interface AvroTap {
  readLong(): number;
  skipLong(): void;
  readString(): string;
}

/**
 * A map type decoding into own properties. avsc's `MapType` reads a map by assigning each key to a plain object, and
 * assigning `__proto__` calls the prototype setter: a client's header or system-metadata property of that name would
 * vanish between the gateway and the writer. This reads the same bytes (Avro's blocks of key/value pairs, a negative
 * count followed by the block's size) and defines that key instead.
 */
class OwnKeysMapType extends types.MapType {
  /** Replaces avsc's `MapType.prototype._read`, which its record, union and array readers call. */
  _read(tap: AvroTap): Record<string, unknown> {
    const values = this.valuesType as { _read(tap: AvroTap): unknown };
    const map: Record<string, unknown> = {};
    for (let count = blockCount(tap); count > 0; count = blockCount(tap)) {
      for (; count > 0; count -= 1) {
        const key = tap.readString();
        const value = values._read(tap);
        if (key === '__proto__') {
          Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
        } else map[key] = value;
      }
    }
    return map;
  }
}

function blockCount(tap: AvroTap): number {
  const count = tap.readLong();
  if (count >= 0) return count;
  tap.skipLong();
  return -count;
}

/** avsc's `typeHook`: every map of the event schemas is an {@link OwnKeysMapType} (same schema, same fingerprint). */
function ownKeysMaps(schema: AvroSchema, opts: unknown): Type | undefined {
  return isObject(schema) && schema['type'] === 'map' ? new OwnKeysMapType(schema, opts) : undefined;
}

type AvroSchema = Parameters<typeof Type.forSchema>[0];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
