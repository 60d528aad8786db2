import { validateProposal, type JsonObject, type ValidatedProposal } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import { proposalOf, type ProposalOptions } from '@strata/testing';
import { deciderSpecification } from '@strata/testing/specifications';

import { decide, type CurrentAspect, type Decision, type DecisionContext } from './decide';
import {
  isSchemaFieldSideEffectRow,
  schemaFieldAliasesOf,
  schemaFieldReads,
  schemaFieldSideEffects,
  schemaFieldUrn,
  schemaFieldUrnPrefix,
  type SchemaFieldEffects,
} from './schema-field-side-effects';

type StoredAspect = NonNullable<ReturnType<CurrentAspect>>;
type Mutation = Decision['mutations'][number];

const registry = testEntityRegistry();
const context: DecisionContext = { now: 1_700_000_000_000, actor: 'urn:li:corpuser:writer' };
const dataset = 'urn:li:dataset:(urn:li:dataPlatform:bigquery,my_dataset.my_table,PROD)';
const datasetKey = { platform: 'urn:li:dataPlatform:bigquery', name: 'my_dataset.my_table', origin: 'PROD' };
const field = (path: string) => schemaFieldUrn(dataset, path) ?? `unexpected: no URN for ${path}`;
const run = { runId: 'run-1', lastObserved: 1_699_000_000_000 };

/** The result of a proposal on the dataset: its own decision, and the side effects on the fields. */
interface Outcome {
  readonly decision: Decision;
  readonly effects: SchemaFieldEffects;
}

/**
 * given(every stored row, of any entity).when(a validated proposal on the dataset).then(its decision and the side
 * effects on the dataset's fields), as the writer makes them: decide, then read what the side effects name.
 */
const spec = deciderSpecification((proposal: ValidatedProposal, rows: readonly StoredAspect[]): Outcome => {
  const latest = (urn: string, aspect: string) => rows.find((row) => row.urn === urn && row.aspect === aspect);
  const decision = decide(proposal, (aspect) => latest(proposal.urn.toString(), aspect), context);
  const fieldsOf = (datasetUrn: string) => [
    ...new Set(rows.filter((row) => row.urn.startsWith(schemaFieldUrnPrefix(datasetUrn))).map((row) => row.urn)),
  ];
  return { decision, effects: schemaFieldSideEffects(decision.changeLogs, { latest, fieldsOf }, registry) };
});

function validated(
  aspectName: string,
  value?: JsonObject,
  options: ProposalOptions & { readonly changeType?: 'UPSERT' | 'DELETE' | 'PATCH' } = {},
): ValidatedProposal {
  return validateProposal(registry, proposalOf(dataset, aspectName, value, { systemMetadata: run, ...options }));
}

/** A schema as DataHub's smoke tests make it (`_create_schema_with_fields`): string fields, these paths. */
function schema(...paths: string[]): JsonObject {
  return {
    schemaName: 'my_schema',
    platform: 'urn:li:dataPlatform:bigquery',
    version: 0,
    hash: '',
    platformSchema: { 'com.linkedin.schema.OtherSchema': { rawSchema: '' } },
    fields: paths.map((fieldPath) => ({
      fieldPath,
      nativeDataType: 'STRING',
      type: { type: { 'com.linkedin.schema.StringType': {} } },
      description: '',
      nullable: true,
      recursive: false,
      isPartOfKey: false,
    })),
  };
}

function row(urn: string, aspect: string, version: number, value: JsonObject): StoredAspect {
  return {
    urn,
    aspect,
    version,
    value,
    systemMetadata: { runId: 'run-0', lastObserved: 1000, lastRunId: 'run-0', version: String(version) },
    createdOn: 1000,
    createdBy: 'urn:li:corpuser:earlier',
  };
}

/** A stored dataset with this schema, and each listed field's entity as the side effects left it. */
function storedDataset(paths: readonly string[], options: { removed?: boolean; dropped?: string[] } = {}) {
  const rows = [row(dataset, 'datasetKey', 1, datasetKey), row(dataset, 'schemaMetadata', 1, schema(...paths))];
  if (options.removed !== undefined) rows.push(row(dataset, 'status', 1, { removed: options.removed }));
  const fields = paths.map((fieldPath) => ({ fieldPath, urn: field(fieldPath) }));
  const aliases = schemaFieldAliasesOf(dataset, fields);
  for (const { fieldPath, urn } of fields) {
    rows.push(
      row(urn, 'schemaFieldKey', 1, { parent: dataset, fieldPath }),
      row(urn, 'status', 1, { removed: options.removed ?? false }),
      row(urn, 'schemaFieldAliases', 1, { aliases: aliases.get(urn) ?? [] }),
    );
  }
  for (const fieldPath of options.dropped ?? []) {
    const urn = field(fieldPath);
    rows.push(
      row(urn, 'schemaFieldKey', 1, { parent: dataset, fieldPath }),
      row(urn, 'status', 2, { removed: true }),
      row(urn, 'schemaFieldAliases', 1, { aliases: [urn] }),
    );
  }
  return rows;
}

/** The effects' writes as `<urn> <aspect>=<value>` (or `<urn> -<aspect>`, `<urn> deleted`), in order. */
function writes(effects: SchemaFieldEffects): string[] {
  return effects.mutations.map((mutation: Mutation) => {
    switch (mutation.kind) {
      case 'put':
        return `${mutation.urn} ${mutation.aspect}=${JSON.stringify(mutation.row.value)}`;
      case 'deleteAspect':
        return `${mutation.urn} -${mutation.aspect}`;
      case 'deleteEntity':
        return `${mutation.urn} deleted`;
      default:
        return mutation.kind;
    }
  });
}

describe('schemaField side effects', () => {
  describe('URNs and aliases (DataHub’s SchemaFieldUtils)', () => {
    it('makes the URN of a field from the dataset URN and the path, with "(", ")" and "," percent-encoded', () => {
      expect(schemaFieldUrn(dataset, 'customer_id')).toBe(`urn:li:schemaField:(${dataset},customer_id)`);
      expect(schemaFieldUrn(dataset, 'Split 1 - final (Investment, Income)')).toBe(
        `urn:li:schemaField:(${dataset},Split 1 - final %28Investment%2C Income%29)`,
      );
      expect(schemaFieldUrn(dataset, '')).toBeUndefined();
    });

    it('gives a v1 field itself as its only alias, and a v2 field its v1 path and every field sharing it', () => {
      const paths = [
        'customer_id',
        '[version=2.0].[type=ABFooUnion].[type=union].a',
        '[version=2.0].[type=ABFooUnion].[type=union].[type=A].a',
        '[version=2.0].[type=ABFooUnion].[type=union].[type=A].a.[type=string].f',
        '[version=2.0].[type=ABFooUnion].[type=union].[type=B].a',
        '[version=2.0].[type=ABFooUnion].[type=union].[type=B].a.[type=string].f',
        '[version=2.0].[type=ABFooUnion].[type=union].[type=array].[type=array].[type=Foo].a',
        '[version=2.0].[type=ABFooUnion].[type=union].[type=array].[type=array].[type=Foo].a.[type=long].f',
      ];
      const aliases = schemaFieldAliasesOf(
        dataset,
        paths.map((fieldPath) => ({ fieldPath, urn: field(fieldPath) })),
      );
      expect(aliases.get(field('customer_id'))).toEqual([field('customer_id')]);
      expect(aliases.get(field(paths[1] ?? ''))).toEqual(
        [field('a'), field(paths[1] ?? ''), field(paths[2] ?? ''), field(paths[4] ?? ''), field(paths[6] ?? '')].sort(),
      );
      expect(aliases.get(field(paths[7] ?? ''))).toEqual(
        [field('a.f'), field(paths[3] ?? ''), field(paths[5] ?? ''), field(paths[7] ?? '')].sort(),
      );
    });
  });

  describe('writing a dataset’s schemaMetadata', () => {
    it('given no dataset, when its schema is written, then each field becomes an entity: key, status and aliases, each with an UPSERT change log stamped like the write', () => {
      spec
        .given([])
        .when(validated('schemaMetadata', schema('field_0', 'field_1')))
        .then(({ decision, effects }) => {
          expect(decision.outcome.status).toBe('APPLIED');
          expect(writes(effects)).toEqual([
            `${field('field_0')} schemaFieldKey=${JSON.stringify({ parent: dataset, fieldPath: 'field_0' })}`,
            `${field('field_0')} status={"removed":false}`,
            `${field('field_0')} schemaFieldAliases=${JSON.stringify({ aliases: [field('field_0')] })}`,
            `${field('field_1')} schemaFieldKey=${JSON.stringify({ parent: dataset, fieldPath: 'field_1' })}`,
            `${field('field_1')} status={"removed":false}`,
            `${field('field_1')} schemaFieldAliases=${JSON.stringify({ aliases: [field('field_1')] })}`,
          ]);
          for (const mutation of effects.mutations) {
            expect(mutation).toMatchObject({
              kind: 'put',
              expectedVersion: 0,
              row: {
                version: 1,
                systemMetadata: { runId: 'run-1', lastRunId: 'run-1', lastObserved: run.lastObserved, version: '1' },
                createdOn: context.now,
                createdBy: context.actor,
              },
            });
          }
          expect(effects.changeLogs).toHaveLength(6);
          for (const log of effects.changeLogs) {
            expect(log).toMatchObject({
              timeseries: false,
              entityType: 'schemaField',
              changeType: 'UPSERT',
              previousAspectValue: undefined,
              created: { time: context.now, actor: context.actor },
              headers: {},
            });
          }
        });
    });

    it('given no dataset, when a schema of nested (v2) paths is written, then the URNs carry the paths and the key the path as given', () => {
      const nested = '[version=2.0].[type=Address].parent_field.[type=string].field_0';
      spec
        .given([])
        .when(validated('schemaMetadata', schema(nested)))
        .then(({ effects }) => {
          expect(writes(effects)).toEqual([
            `${field(nested)} schemaFieldKey=${JSON.stringify({ parent: dataset, fieldPath: nested })}`,
            `${field(nested)} status={"removed":false}`,
            `${field(nested)} schemaFieldAliases=${JSON.stringify({ aliases: [field('parent_field.field_0'), field(nested)].sort() })}`,
          ]);
        });
    });

    it('given a soft-deleted dataset, when its schema is written, then its fields are created soft-deleted', () => {
      spec
        .given([row(dataset, 'datasetKey', 1, datasetKey), row(dataset, 'status', 1, { removed: true })])
        .when(validated('schemaMetadata', schema('field_0')))
        .then(({ effects }) => {
          expect(writes(effects)).toContain(`${field('field_0')} status={"removed":true}`);
        });
    });

    it('given a dataset and its fields, when the same schema is written again, then nothing is written, not even for the fields', () => {
      spec
        .given(storedDataset(['field_0', 'field_1']))
        .when(validated('schemaMetadata', schema('field_0', 'field_1')))
        .then(({ decision, effects }) => {
          expect(decision.outcome.status).toBe('UNCHANGED');
          expect(decision.changeLogs).toEqual([]);
          expect(effects).toEqual({ mutations: [], changeLogs: [] });
        });
    });

    it('given a dataset and its fields, when the schema changes but not its fields’ paths, then no field is written', () => {
      const described = schema('field_0', 'field_1');
      (described['fields'] as JsonObject[])[0] = { ...(described['fields'] as JsonObject[])[0], description: 'new' };
      spec
        .given(storedDataset(['field_0', 'field_1']))
        .when(validated('schemaMetadata', described))
        .then(({ decision, effects }) => {
          expect(decision.outcome).toEqual({ status: 'APPLIED', version: 2 });
          expect(effects.mutations).toEqual([]);
        });
    });

    it('given a dataset with two fields, when one is dropped from the schema, then that field is soft-deleted (a new version of its status) and the other is left alone', () => {
      spec
        .given(storedDataset(['field_0', 'field_1']))
        .when(validated('schemaMetadata', schema('field_0')))
        .then(({ effects }) => {
          expect(writes(effects)).toEqual([`${field('field_1')} status={"removed":true}`]);
          expect(effects.mutations[0]).toMatchObject({ expectedVersion: 1, row: { version: 2 } });
          expect(effects.changeLogs[0]).toMatchObject({
            entityUrn: field('field_1'),
            aspectName: 'status',
            changeType: 'UPSERT',
            aspect: { removed: true },
            previousAspectValue: { removed: false },
          });
        });
    });

    it('given a field dropped earlier, when it comes back in the schema, then it is restored', () => {
      spec
        .given(storedDataset(['field_0'], { dropped: ['field_1'] }))
        .when(validated('schemaMetadata', schema('field_0', 'field_1')))
        .then(({ effects }) => {
          expect(writes(effects)).toEqual([`${field('field_1')} status={"removed":false}`]);
          expect(effects.mutations[0]).toMatchObject({ expectedVersion: 2, row: { version: 3 } });
        });
    });

    it('given a field whose aliases change with a new field (a shared v1 path), when the schema gains it, then the old field’s aliases are rewritten', () => {
      const a = '[version=2.0].[type=A].a';
      const b = '[version=2.0].[type=B].a';
      spec
        .given(storedDataset([a]))
        .when(validated('schemaMetadata', schema(a, b)))
        .then(({ effects }) => {
          const together = JSON.stringify({ aliases: [field('a'), field(a), field(b)].sort() });
          expect(writes(effects)).toEqual([
            `${field(a)} schemaFieldAliases=${together}`,
            `${field(b)} schemaFieldKey=${JSON.stringify({ parent: dataset, fieldPath: b })}`,
            `${field(b)} status={"removed":false}`,
            `${field(b)} schemaFieldAliases=${together}`,
          ]);
        });
    });

    it('given stored aliases in another order, when the schema changes, then they are not rewritten', () => {
      const a = '[version=2.0].[type=A].a';
      const rows = storedDataset([a, 'x']).map((stored) =>
        stored.urn === field(a) && stored.aspect === 'schemaFieldAliases'
          ? { ...stored, value: { aliases: [field(a), field('a')] } }
          : stored,
      );
      spec
        .given(rows)
        .when(validated('schemaMetadata', schema(a)))
        .then(({ effects }) => {
          expect(writes(effects)).toEqual([`${field('x')} status={"removed":true}`]);
        });
    });

    it('given no dataset, when a schema lists a path twice or an empty path, then each path that can be a URN is one entity', () => {
      spec
        .given([])
        .when(validated('schemaMetadata', schema('a', 'a', '')))
        .then(({ effects }) => {
          expect(new Set(effects.mutations.map((mutation) => ('urn' in mutation ? mutation.urn : '')))).toEqual(
            new Set([field('a')]),
          );
        });
    });

    it('given a dataset with fields, one of them dropped, when its schema is deleted, then every field entity of it is deleted, each with a DELETE change log of its key', () => {
      spec
        .given(storedDataset(['field_0'], { dropped: ['field_1'] }))
        .when(validated('schemaMetadata', undefined, { changeType: 'DELETE' }))
        .then(({ effects }) => {
          expect(writes(effects)).toEqual([`${field('field_0')} deleted`, `${field('field_1')} deleted`]);
          expect(effects.changeLogs[0]).toMatchObject({
            entityType: 'schemaField',
            entityUrn: field('field_0'),
            changeType: 'DELETE',
            aspectName: 'schemaFieldKey',
            aspect: undefined,
            previousAspectValue: { parent: dataset, fieldPath: 'field_0' },
          });
        });
    });
  });

  describe('soft-deleting and restoring the dataset (its status)', () => {
    it('given a dataset with fields, when it is soft-deleted, then every field of its schema is soft-deleted', () => {
      spec
        .given(storedDataset(['field_0', 'field_1']))
        .when(validated('status', { removed: true }))
        .then(({ effects }) => {
          expect(writes(effects)).toEqual([
            `${field('field_0')} status={"removed":true}`,
            `${field('field_1')} status={"removed":true}`,
          ]);
        });
    });

    it('given a soft-deleted dataset with a field dropped, when it is restored, then the fields of its schema are restored and the dropped one stays removed', () => {
      spec
        .given(storedDataset(['field_0'], { removed: true, dropped: ['field_1'] }))
        .when(validated('status', { removed: false }))
        .then(({ effects }) => {
          expect(writes(effects)).toEqual([`${field('field_0')} status={"removed":false}`]);
        });
    });

    it('given a dataset whose fields were never made entities, when its status is written, then they are made', () => {
      spec
        .given([row(dataset, 'datasetKey', 1, datasetKey), row(dataset, 'schemaMetadata', 1, schema('field_0'))])
        .when(validated('status', { removed: true }))
        .then(({ effects }) => {
          expect(writes(effects)).toEqual([
            `${field('field_0')} schemaFieldKey=${JSON.stringify({ parent: dataset, fieldPath: 'field_0' })}`,
            `${field('field_0')} status={"removed":true}`,
            `${field('field_0')} schemaFieldAliases=${JSON.stringify({ aliases: [field('field_0')] })}`,
          ]);
        });
    });

    it('given a dataset without a schema, when it is soft-deleted, then there is nothing to follow', () => {
      spec
        .given([row(dataset, 'datasetKey', 1, datasetKey)])
        .when(validated('status', { removed: true }))
        .then(({ effects }) => {
          expect(effects.mutations).toEqual([]);
        });
    });

    it('given a soft-deleted dataset, when its status is deleted, then its fields lose their status (and are no longer removed)', () => {
      spec
        .given(storedDataset(['field_0'], { removed: true }))
        .when(validated('status', undefined, { changeType: 'DELETE' }))
        .then(({ effects }) => {
          expect(writes(effects)).toEqual([`${field('field_0')} -status`]);
          expect(effects.changeLogs[0]).toMatchObject({ changeType: 'DELETE', previousAspectValue: { removed: true } });
        });
    });
  });

  describe('hard-deleting the dataset', () => {
    it('given a dataset with fields, one of them dropped, when the dataset is deleted, then every field entity of it is deleted', () => {
      spec
        .given(storedDataset(['field_0'], { dropped: ['field_1'] }))
        .when(validated('datasetKey', undefined, { changeType: 'DELETE' }))
        .then(({ decision, effects }) => {
          expect(decision.mutations).toEqual([{ kind: 'deleteEntity', urn: dataset }]);
          expect(writes(effects).sort()).toEqual([`${field('field_0')} deleted`, `${field('field_1')} deleted`]);
        });
    });
  });

  describe('what is read first', () => {
    it('names the dataset’s schema and status and the aspects of the fields of the new and the previous schema', () => {
      const rows = storedDataset(['field_0', 'field_1']);
      const latest = (urn: string, aspect: string) => rows.find((each) => each.urn === urn && each.aspect === aspect);
      const decision = decide(
        validated('schemaMetadata', schema('field_0', 'field_2')),
        (aspect) => latest(dataset, aspect),
        context,
      );
      const reads = schemaFieldReads(decision.changeLogs, latest, registry);
      const named = reads.keys.map(({ urn, aspect }) => `${urn} ${aspect}`);
      expect(named).toEqual(
        expect.arrayContaining([
          `${dataset} schemaMetadata`,
          `${dataset} status`,
          `${field('field_2')} schemaFieldKey`,
          `${field('field_2')} status`,
          `${field('field_2')} schemaFieldAliases`,
          `${field('field_1')} schemaFieldKey`,
          `${field('field_1')} status`,
        ]),
      );
      expect(reads.everyFieldOf).toEqual([]);
    });

    it('names the fields of the stored schema for a status change, and asks for every field of a deleted dataset', () => {
      const rows = storedDataset(['field_0']);
      const latest = (urn: string, aspect: string) => rows.find((each) => each.urn === urn && each.aspect === aspect);
      const status = decide(validated('status', { removed: true }), (aspect) => latest(dataset, aspect), context);
      expect(schemaFieldReads(status.changeLogs, latest, registry).keys).toContainEqual({
        urn: field('field_0'),
        aspect: 'status',
      });
      const deleted = decide(
        validated('datasetKey', undefined, { changeType: 'DELETE' }),
        (aspect) => latest(dataset, aspect),
        context,
      );
      expect(schemaFieldReads(deleted.changeLogs, latest, registry).everyFieldOf).toEqual([dataset]);
    });

    it('names nothing for a write to another aspect or entity', () => {
      const decision = decide(validated('globalTags', { tags: [] }), () => undefined, context);
      expect(schemaFieldReads(decision.changeLogs, () => undefined, registry)).toEqual({ keys: [], everyFieldOf: [] });
    });
  });

  it('tells the rows it keeps (a dataset field’s key, status and aliases) from the others', () => {
    expect(isSchemaFieldSideEffectRow(field('a'), 'schemaFieldKey')).toBe(true);
    expect(isSchemaFieldSideEffectRow(field('a'), 'status')).toBe(true);
    expect(isSchemaFieldSideEffectRow(field('a'), 'schemaFieldAliases')).toBe(true);
    expect(isSchemaFieldSideEffectRow(field('a'), 'documentation')).toBe(false);
    expect(isSchemaFieldSideEffectRow(dataset, 'status')).toBe(false);
  });
});
