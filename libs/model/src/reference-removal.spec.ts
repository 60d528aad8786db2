import type { JsonObject } from './aspect-validator';
import type { EntitySpec } from './entity-registry';
import { unionMemberKey, unwrapOptional, type AvroSchema } from './record-schema';
import { removeReferences } from './reference-removal';
import { EVERY, KEYS, relationshipFields, valuesAt, type RelationshipFieldSpec } from './search-annotations';
import { sampleAspectValue, sampleUrn, sampleValue, testEntityRegistry } from './testing';

const registry = testEntityRegistry();
const entity = (name: string): EntitySpec => registry.entity(name)!;
const dataset = entity('dataset');

const hive = (name: string) => `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`;
const field = (table: string, column: string) => `urn:li:schemaField:(${hive(table)},${column})`;
const stamp = { time: 1, actor: 'urn:li:corpuser:datahub' };

/** The removal, after checking that the value it leaves is one the aspect accepts. */
function removal(entityName: string, aspect: string, value: JsonObject, urn: string) {
  const result = removeReferences(entity(entityName), aspect, value, urn);
  if (result.kind === 'changed') expect(() => entity(entityName).aspect(aspect)!.validate(result.value)).not.toThrow();
  return result;
}

describe('removeReferences', () => {
  it('given tags, when one is removed, then its association goes and the others stay in order', () => {
    const value = { tags: [{ tag: 'urn:li:tag:a' }, { tag: 'urn:li:tag:pii', context: 'x' }, { tag: 'urn:li:tag:b' }] };
    expect(removal('dataset', 'globalTags', value, 'urn:li:tag:pii')).toEqual({
      kind: 'changed',
      value: { tags: [{ tag: 'urn:li:tag:a' }, { tag: 'urn:li:tag:b' }] },
      relationships: ['TaggedWith'],
    });
    expect(value.tags).toHaveLength(3); // the input is left as it was
  });

  it('given the only tag, when removed, then the array stays, empty', () => {
    expect(removal('dataset', 'globalTags', { tags: [{ tag: 'urn:li:tag:pii' }] }, 'urn:li:tag:pii')).toEqual({
      kind: 'changed',
      value: { tags: [] },
      relationships: ['TaggedWith'],
    });
  });

  it('given owners, when a user is removed, then their ownership goes; an ownership type goes from where it is named', () => {
    const value = {
      owners: [
        { owner: 'urn:li:corpuser:jdoe', type: 'DATAOWNER' },
        { owner: 'urn:li:corpuser:ann', type: 'CUSTOM', typeUrn: 'urn:li:ownershipType:steward' },
      ],
      lastModified: stamp,
    };
    expect(removal('dataset', 'ownership', value, 'urn:li:corpuser:jdoe')).toEqual({
      kind: 'changed',
      value: { owners: [value.owners[1]], lastModified: stamp },
      relationships: ['OwnedBy'],
    });
    // typeUrn is optional: the owner stays, without it.
    expect(removal('dataset', 'ownership', value, 'urn:li:ownershipType:steward')).toEqual({
      kind: 'changed',
      value: { owners: [value.owners[0], { owner: 'urn:li:corpuser:ann', type: 'CUSTOM' }], lastModified: stamp },
      relationships: ['ownershipType'],
    });
  });

  it('given a required top-level reference, when removed, then the aspect is emptied', () => {
    expect(removal('dataset', 'container', { container: 'urn:li:container:c1' }, 'urn:li:container:c1')).toEqual({
      kind: 'emptied',
      relationships: ['IsPartOf'],
    });
  });

  it('given an optional reference, when removed, then the field goes and the required ones stay', () => {
    const value = { definition: 'A term', termSource: 'INTERNAL', parentNode: 'urn:li:glossaryNode:finance' };
    expect(removal('glossaryTerm', 'glossaryTermInfo', value, 'urn:li:glossaryNode:finance')).toEqual({
      kind: 'changed',
      value: { definition: 'A term', termSource: 'INTERNAL' },
      relationships: ['IsPartOf'],
    });
  });

  it('given an array of URNs, when one is removed, then only it goes', () => {
    expect(
      removal('dataset', 'domains', { domains: ['urn:li:domain:a', 'urn:li:domain:b'] }, 'urn:li:domain:a'),
    ).toEqual({ kind: 'changed', value: { domains: ['urn:li:domain:b'] }, relationships: ['AssociatedWith'] });
  });

  it('given nested references (tags of schema fields), when removed, then each field loses the tag', () => {
    const value = {
      schemaName: 't',
      platform: 'urn:li:dataPlatform:hive',
      version: 0,
      hash: '',
      platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
      fields: [
        {
          fieldPath: 'a',
          nativeDataType: 'int',
          type: { type: { 'com.linkedin.schema.NumberType': {} } },
          globalTags: { tags: [{ tag: 'urn:li:tag:NeedsDocs' }] },
        },
        { fieldPath: 'b', nativeDataType: 'int', type: { type: { 'com.linkedin.schema.NumberType': {} } } },
      ],
    };
    const result = removal('dataset', 'schemaMetadata', value, 'urn:li:tag:NeedsDocs');
    expect(result).toMatchObject({ kind: 'changed', relationships: ['SchemaFieldTaggedWith'] });
    expect(result.kind === 'changed' && result.value['fields']).toEqual([
      { ...value.fields[0], globalTags: { tags: [] } },
      value.fields[1],
    ]);
  });

  it('given lineage, when an upstream dataset is removed, then its upstream goes and column lineage to it stays', () => {
    const value = {
      upstreams: [
        { auditStamp: stamp, dataset: hive('a'), type: 'TRANSFORMED' },
        { auditStamp: stamp, dataset: hive('b'), type: 'TRANSFORMED' },
      ],
      fineGrainedLineages: [
        {
          upstreamType: 'FIELD_SET',
          upstreams: [field('a', 'x'), field('b', 'y')],
          downstreamType: 'FIELD',
          downstreams: [field('c', 'z')],
        },
      ],
    };
    expect(removal('dataset', 'upstreamLineage', value, hive('a'))).toEqual({
      kind: 'changed',
      value: { ...value, upstreams: [value.upstreams[1]] },
      relationships: ['DownstreamOf'],
    });
    expect(removal('dataset', 'upstreamLineage', value, field('a', 'x'))).toEqual({
      kind: 'changed',
      value: { ...value, fineGrainedLineages: [{ ...value.fineGrainedLineages[0], upstreams: [field('b', 'y')] }] },
      relationships: ['DownstreamOf'],
    });
  });

  it('given a union member path, when the referenced dataset is removed, then its wrapped item goes', () => {
    const value = {
      title: 'c',
      description: '',
      lastModified: { created: stamp, lastModified: stamp },
      inputs: [{ string: hive('a') }, { string: hive('b') }],
    };
    expect(removal('chart', 'chartInfo', value, hive('a'))).toEqual({
      kind: 'changed',
      value: { ...value, inputs: [{ string: hive('b') }] },
      relationships: ['Consumes'],
    });
  });

  it('given the URN where no relationship looks, of a type it does not allow, or not a URN, then unchanged', () => {
    const value = { tags: [{ tag: 'urn:li:tag:pii' }] };
    expect(removeReferences(dataset, 'datasetProperties', { description: 'urn:li:tag:pii' }, 'urn:li:tag:pii')).toEqual(
      { kind: 'unchanged' },
    );
    expect(removeReferences(dataset, 'globalTags', value, 'urn:li:tag:other')).toEqual({ kind: 'unchanged' });
    expect(
      removeReferences(dataset, 'globalTags', { tags: [{ tag: 'urn:li:corpuser:x' }] }, 'urn:li:corpuser:x'),
    ).toEqual({ kind: 'unchanged' });
    expect(removeReferences(dataset, 'globalTags', value, 'not a urn')).toEqual({ kind: 'unchanged' });
  });

  it('given an aspect the entity does not have, then it is a programming error', () => {
    expect(() => removeReferences(dataset, 'chartInfo', {}, 'urn:li:tag:x')).toThrow('dataset has no aspect chartInfo');
  });
});

/**
 * A value of the aspect a relationship annotation reads, holding `urn` at the annotation's path (and whatever the
 * schema requires on the way), or undefined when the path cannot hold it (a `$key` that is not the last segment).
 */
function planted(entitySpec: EntitySpec, spec: RelationshipFieldSpec, urn: string): JsonObject | undefined {
  const aspect = entitySpec.aspect(spec.aspect)!;
  const root = sampleAspectValue(registry, aspect.schema);
  const place = (type: AvroSchema, value: unknown, index: number): unknown => {
    const present = unwrapOptional(type);
    if (index === spec.path.length) return present.type === 'array' ? [urn] : urn;
    const segment = spec.path[index] as string;
    switch (present.type) {
      case 'record': {
        const field = present.field(segment)!;
        const holder = (value ?? {}) as JsonObject;
        holder[segment] = place(
          field.type,
          holder[segment] ?? sampleValue(registry, unwrapOptional(field.type)),
          index + 1,
        );
        return holder;
      }
      case 'array':
        return [place(present.items, sampleValue(registry, present.items), index + 1)];
      case 'map':
        return segment === KEYS
          ? { [urn]: sampleValue(registry, present.values) }
          : { k: place(present.values, sampleValue(registry, present.values), index + 1) };
      case 'union': {
        const member = present.members.find((candidate) => unionMemberKey(candidate) === segment)!;
        return { [segment]: place(member, sampleValue(registry, member), index + 1) };
      }
      default:
        throw new Error(`${spec.aspect} /${spec.path.join('/')}: a ${present.type} has no segment ${segment}`);
    }
  };
  if (spec.path.slice(0, -1).includes(KEYS)) return undefined;
  return place(aspect.schema, root, 0) as JsonObject;
}

describe('removeReferences over the whole registry', () => {
  const cases = registry.entities().flatMap((entitySpec) =>
    relationshipFields(entitySpec)
      .filter((spec) => !entitySpec.aspect(spec.aspect)!.isKey)
      .map(
        (spec) => [`${entitySpec.name} ${spec.aspect} ${spec.name} /${spec.path.join('/')}`, entitySpec, spec] as const,
      ),
  );

  it('covers every relationship annotation of every entity type', () => {
    expect(cases.length).toBeGreaterThan(300);
    expect(cases.some(([, , spec]) => spec.path.includes(EVERY))).toBe(true);
  });

  it.each(cases)('%s: the reference goes and what is left is valid', (_name, entitySpec, spec) => {
    const urn = sampleUrn(registry, spec.entityTypes[0]!);
    const value = planted(entitySpec, spec, urn);
    if (value === undefined) return;
    const aspect = entitySpec.aspect(spec.aspect)!;
    expect(() => aspect.validate(value)).not.toThrow();
    expect(valuesAt(value, spec.path)).toContain(urn);
    const result = removeReferences(entitySpec, spec.aspect, value, urn);
    expect(result.kind).not.toBe('unchanged');
    if (result.kind === 'unchanged') return;
    // Usually this annotation's name; another one of the same URN on the way may have taken the place first.
    expect(result.relationships.length).toBeGreaterThan(0);
    if (result.kind === 'changed') {
      expect(() => aspect.validate(result.value)).not.toThrow();
      expect(valuesAt(result.value, spec.path)).not.toContain(urn);
    }
  });
});
