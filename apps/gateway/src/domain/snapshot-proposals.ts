import {
  checkNestingDepth,
  parseUrn,
  StrataError,
  ValidationError,
  validateProposal,
  type EntityRegistry,
  type EntitySpec,
  type ValidatedProposal,
} from '@strata/model';

/** Kafka-JSON producers write record names with `pegasus2avro`; the REST interface without. Both are accepted. */
function restRecordName(name: string): string {
  return name.replace('com.linkedin.pegasus2avro.', 'com.linkedin.');
}

/**
 * Turns a legacy snapshot (`POST /entities?action=ingest`) into one UPSERT proposal per aspect, validating every one
 * before returning any: the request is all or nothing. Throws one ValidationError naming every problem.
 *
 * Accepted: `{value: {<…Snapshot>: {urn, aspects: [{<aspect record name>: value}, …]}}}`; aspects may also be direct
 * members of the snapshot named after the aspect (the glossary-term shape of DataHub's docs). A snapshot with no
 * aspects creates the entity (its key aspect). A snapshot nesting deeper than `MAX_JSON_NESTING_DEPTH` is refused
 * before its aspect values are serialized (which would overflow the stack).
 */
export function proposalsFromSnapshot(
  registry: EntityRegistry,
  entityInput: unknown,
  systemMetadata: unknown,
  maxAspectBytes: number,
): ValidatedProposal[] {
  checkNestingDepth(entityInput, 'The snapshot');
  const union = objectOrThrow(objectOrThrow(entityInput, 'entity')['value'], 'entity.value');
  const names = Object.keys(union);
  if (names.length !== 1) {
    throw new ValidationError(
      `entity.value must hold exactly one snapshot, found ${names.length === 0 ? 'none' : names.join(', ')}`,
    );
  }
  const snapshotName = names[0] ?? '';
  const entity = registry.entityBySnapshot(restRecordName(snapshotName));
  if (!entity) throw new ValidationError(`Unknown snapshot type: ${snapshotName}`);
  const snapshot = objectOrThrow(union[snapshotName], snapshotName);
  const urn = snapshot['urn'];
  if (typeof urn !== 'string') throw new ValidationError(`${snapshotName}.urn is required and must be a string`);

  const aspects = aspectsOf(entity, snapshot, snapshotName);
  if (aspects.length === 0)
    aspects.push({ name: entity.keyAspect.name, value: entity.keyFromUrn(parseOrThrow(entity, urn)) });

  const problems: string[] = [];
  const proposals: ValidatedProposal[] = [];
  for (const aspect of aspects) {
    try {
      proposals.push(
        validateProposal(
          registry,
          {
            entityType: entity.name,
            entityUrn: urn,
            changeType: 'UPSERT',
            aspectName: aspect.name,
            aspect: { value: JSON.stringify(pythonShapes(aspect.value)), contentType: 'application/json' },
            systemMetadata: systemMetadata ?? undefined,
          },
          { maxAspectBytes },
        ),
      );
    } catch (error) {
      if (!(error instanceof StrataError)) throw error;
      if (error.code !== 'validation') throw error;
      problems.push(error.message);
    }
  }
  if (problems.length > 0) throw new ValidationError([...new Set(problems)].join('\n'));
  return proposals;
}

/**
 * An aspect value as DataHub's Python classes write it into files, in the form the REST interface reads: a union
 * member keyed `com.linkedin.pegasus2avro.…` is keyed `com.linkedin.…`, and an aliased union written with its
 * `fieldDiscriminator` (`{"fieldDiscriminator": "costCode", "costCode": "c-1", "costId": null}`) holds the named
 * member only. DataHub's sink rewrites both before sending; a file posted as it is needs the same.
 */
export function pythonShapes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pythonShapes);
  if (typeof value !== 'object' || value === null) return value;
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  const only = keys.length === 1 ? keys[0] : undefined;
  if (only !== undefined && only.startsWith('com.linkedin.pegasus2avro.')) {
    return { [restRecordName(only)]: pythonShapes(object[only]) };
  }
  const discriminator = object['fieldDiscriminator'];
  if (typeof discriminator === 'string' && Object.hasOwn(object, discriminator)) {
    const member: Record<string, unknown> = {};
    Object.defineProperty(member, discriminator, {
      value: pythonShapes(object[discriminator]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
    return member;
  }
  const output: Record<string, unknown> = {};
  for (const key of keys) {
    Object.defineProperty(output, key, {
      value: pythonShapes(object[key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return output;
}

function aspectsOf(entity: EntitySpec, snapshot: Record<string, unknown>, snapshotName: string) {
  const found: { name: string; value: unknown }[] = [];
  const list = snapshot['aspects'];
  if (list !== undefined && !Array.isArray(list)) throw new ValidationError(`${snapshotName}.aspects must be an array`);
  for (const [index, member] of (list ?? []).entries()) {
    const union = objectOrThrow(member, `${snapshotName}.aspects[${index}]`);
    const keys = Object.keys(union);
    const recordName = keys[0];
    if (keys.length !== 1 || recordName === undefined) {
      throw new ValidationError(
        `${snapshotName}.aspects[${index}] must hold exactly one aspect keyed by its record name`,
      );
    }
    const spec = entity.aspectByRecordName(restRecordName(recordName));
    if (!spec) throw new ValidationError(`Unknown aspect ${recordName} for entity ${entity.name}`);
    found.push({ name: spec.name, value: union[recordName] });
  }
  for (const [member, value] of Object.entries(snapshot)) {
    if (member === 'urn' || member === 'aspects') continue;
    const spec = entity.aspect(member);
    if (!spec) throw new ValidationError(`Unknown member ${member} of ${snapshotName}`);
    found.push({ name: spec.name, value });
  }
  return found;
}

function parseOrThrow(entity: EntitySpec, text: string) {
  const urn = parseUrn(text);
  if (urn.entityType !== entity.name) {
    throw new ValidationError(`URN entity type does not match MCP entity type. ${urn.entityType} != ${entity.name}`);
  }
  return urn;
}

function objectOrThrow(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationError(`${what} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}
