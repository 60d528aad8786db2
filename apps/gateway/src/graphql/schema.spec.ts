/**
 * Strata's GraphQL schema against DataHub's: every type, field, argument, input field, enum value, interface and union
 * member Strata serves must be DataHub's, with the same kind and the same type (as graphql-js prints it, `[String!]!`),
 * so that a rename or a type change fails here rather than in a DataHub client. The facts are DataHub's whole schema
 * (e2e/fixtures/datahub-graphql/schema-facts.json); Strata serves a subset of it, and adds exactly one input field,
 * listed below. Then: every document DataHub's CLI and SDK send (the fixtures beside the facts) validates against
 * Strata's schema, and the executable schema builds from the SDL and the resolvers, refusing a resolver of a field the
 * SDL lacks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildSchema,
  getIntrospectionQuery,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isSpecifiedDirective,
  isUnionType,
  parse,
  print,
  validate,
  type GraphQLArgument,
  type GraphQLInputField,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';
import { readGraphqlSchema } from '@strata/schemas';
import { RESOLVERS } from './resolvers';
import { executableSchema, type ResolverMap } from './schema';

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'e2e', 'fixtures', 'datahub-graphql');

interface FactArgument {
  readonly type: string;
  readonly default?: string;
}
interface FactField {
  readonly type: string;
  readonly args?: Readonly<Record<string, FactArgument>>;
}
interface FactType {
  readonly kind: 'OBJECT' | 'INTERFACE' | 'UNION' | 'ENUM' | 'INPUT_OBJECT' | 'SCALAR';
  readonly interfaces?: readonly string[];
  readonly fields?: Readonly<Record<string, FactField>>;
  readonly inputFields?: Readonly<Record<string, FactArgument>>;
  readonly values?: readonly string[];
  readonly possibleTypes?: readonly string[];
}
interface Facts {
  readonly source: {
    readonly rootTypes: Readonly<Record<string, string>>;
    readonly conditional: Readonly<Record<string, { readonly fields: readonly string[] }>>;
  };
  readonly directives: Readonly<Record<string, unknown>>;
  readonly types: Readonly<Record<string, FactType>>;
}

const facts = JSON.parse(readFileSync(join(FIXTURES, 'schema-facts.json'), 'utf8')) as Facts;
const sdl = readGraphqlSchema().map((file) => file.text);
const served = buildSchema(sdl.join('\n'));

/**
 * What Strata serves that DataHub's OSS schema lacks, on purpose: `get_results_by_filter` of DataHub's SDK sends it
 * (DataHub Cloud declares it), and an OSS-only schema would refuse the SDK's whole document.
 */
const STRATA_ADDITIONS = ['SearchFlags.fetchExtraFields'];

/** The named types Strata serves, without graphql-js's introspection types. */
const servedTypes = (schema: GraphQLSchema): GraphQLNamedType[] =>
  Object.values(schema.getTypeMap()).filter((type) => !type.name.startsWith('__'));

function kindOf(type: GraphQLNamedType): FactType['kind'] {
  if (isObjectType(type)) return 'OBJECT';
  if (isInterfaceType(type)) return 'INTERFACE';
  if (isUnionType(type)) return 'UNION';
  if (isEnumType(type)) return 'ENUM';
  if (isInputObjectType(type)) return 'INPUT_OBJECT';
  if (isScalarType(type)) return 'SCALAR';
  throw new Error(`unknown kind of ${String(type)}`);
}

/** The SDL literal of a default, as the facts keep it (`false`, `50`); undefined when there is none. */
const defaultOf = (value: GraphQLArgument | GraphQLInputField): string | undefined =>
  value.astNode?.defaultValue === undefined ? undefined : print(value.astNode.defaultValue);

/** A required argument or input field: non-null without a default, so every caller sends it. */
const required = (fact: FactArgument) => fact.type.endsWith('!') && fact.default === undefined;

/**
 * Every difference between a served input value (an argument, an input field) and DataHub's: `where` names it.
 * Additions are collected apart (see {@link STRATA_ADDITIONS}).
 */
function compareInputs(
  where: string,
  servedValues: readonly (GraphQLArgument | GraphQLInputField)[],
  factValues: Readonly<Record<string, FactArgument>>,
  differences: string[],
  additions: string[],
): void {
  for (const value of servedValues) {
    const fact = factValues[value.name];
    if (fact === undefined) {
      additions.push(`${where}.${value.name}`);
      continue;
    }
    if (String(value.type) !== fact.type) {
      differences.push(`${where}.${value.name}: ${String(value.type)}, DataHub's is ${fact.type}`);
    }
    const defaultValue = defaultOf(value);
    if (defaultValue !== fact.default) {
      differences.push(
        `${where}.${value.name}: default ${defaultValue ?? '(none)'}, DataHub's is ${fact.default ?? '(none)'}`,
      );
    }
  }
  // A client of DataHub always sends what DataHub requires: leaving it out would refuse every such request.
  for (const [name, fact] of Object.entries(factValues)) {
    if (required(fact) && !servedValues.some((value) => value.name === name)) {
      differences.push(`${where}.${name}: required by DataHub (${fact.type}), not served`);
    }
  }
}

/** Every difference between the served schema and DataHub's facts, and the served names DataHub lacks. */
function compareWithFacts(schema: GraphQLSchema): { differences: string[]; additions: string[] } {
  const differences: string[] = [];
  const additions: string[] = [];
  const conditional = new Set(Object.values(facts.source.conditional).flatMap((entry) => entry.fields));
  for (const type of servedTypes(schema)) {
    const fact = facts.types[type.name];
    if (fact === undefined) {
      additions.push(type.name);
      continue;
    }
    const kind = kindOf(type);
    if (kind !== fact.kind) {
      differences.push(`${type.name}: a ${kind}, DataHub's is a ${fact.kind}`);
      continue;
    }
    if (isObjectType(type) || isInterfaceType(type)) {
      const factInterfaces = fact.interfaces ?? [];
      for (const face of type.getInterfaces()) {
        if (!factInterfaces.includes(face.name))
          differences.push(`${type.name}: implements ${face.name}, DataHub's not`);
      }
      // A fragment on a served interface must match the served type as it matches DataHub's.
      for (const face of factInterfaces) {
        if (schema.getType(face) !== undefined && !type.getInterfaces().some((each) => each.name === face)) {
          differences.push(`${type.name}: does not implement ${face}, which DataHub's does and Strata serves`);
        }
      }
      for (const field of Object.values(type.getFields())) {
        const factField = fact.fields?.[field.name];
        if (factField === undefined) {
          if (!conditional.has(`${type.name}.${field.name}`)) additions.push(`${type.name}.${field.name}`);
          continue;
        }
        if (String(field.type) !== factField.type) {
          differences.push(`${type.name}.${field.name}: ${String(field.type)}, DataHub's is ${factField.type}`);
        }
        compareInputs(`${type.name}.${field.name}()`, field.args, factField.args ?? {}, differences, additions);
      }
    } else if (isInputObjectType(type)) {
      compareInputs(type.name, Object.values(type.getFields()), fact.inputFields ?? {}, differences, additions);
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) {
        if (!(fact.values ?? []).includes(value.name)) additions.push(`${type.name}.${value.name}`);
      }
    } else if (isUnionType(type)) {
      for (const member of type.getTypes()) {
        if (!(fact.possibleTypes ?? []).includes(member.name)) additions.push(`${type.name} | ${member.name}`);
      }
    }
  }
  return { differences, additions };
}

describe("Strata's GraphQL schema is a subset of DataHub's", () => {
  const { differences, additions } = compareWithFacts(served);

  it('serves every type, field, argument and input field with the kind, type and default DataHub gives it', () => {
    expect(differences).toEqual([]);
  });

  it('adds nothing DataHub lacks but the one listed addition (type, field, argument, enum value, union member)', () => {
    expect(additions).toEqual(STRATA_ADDITIONS);
    const flags = served.getType('SearchFlags');
    expect(isInputObjectType(flags) ? String(flags.getFields()['fetchExtraFields']?.type) : undefined).toBe(
      '[String!]',
    );
  });

  it('has the root operations DataHub has, and no subscriptions, and no directives of its own', () => {
    expect({
      query: served.getQueryType()?.name,
      mutation: served.getMutationType()?.name,
      subscription: served.getSubscriptionType()?.name,
    }).toEqual({ ...facts.source.rootTypes, subscription: undefined });
    expect(
      served
        .getDirectives()
        .filter((directive) => !isSpecifiedDirective(directive))
        .map(String),
    ).toEqual([]);
    expect(facts.directives).toEqual({});
  });

  it('would notice a renamed field, a changed type, a dropped interface and a dropped required argument', () => {
    // The comparison itself, on a schema with one mistake of each kind: none may pass unseen.
    const text = sdl
      .join('\n')
      .replace(/^(\s+)nextScrollId: String$/m, '$1nextScrollID: String')
      .replace(/^(\s+)degree: Int!$/m, '$1degree: Int')
      .replace(/^type Chart implements Entity \{/m, 'type Chart {')
      .replace(/^(\s+)dataset\(urn: String!\): Dataset$/m, '$1dataset: Dataset');
    expect(text).not.toBe(sdl.join('\n'));
    const found = compareWithFacts(buildSchema(text, { assumeValidSDL: true }));
    expect(found.additions).toEqual(expect.arrayContaining([expect.stringMatching(/\.nextScrollID$/)]));
    expect(found.differences).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/\.degree: Int, DataHub's is Int!$/),
        "Chart: does not implement Entity, which DataHub's does and Strata serves",
        'Query.dataset().urn: required by DataHub (String!), not served',
      ]),
    );
  });
});

/** Every fixture document of DataHub's clients, by file name. */
const fixtures = readdirSync(FIXTURES)
  .filter((name) => name.endsWith('.graphql'))
  .sort()
  .map((name) => [name, readFileSync(join(FIXTURES, name), 'utf8')] as const);

describe("the documents DataHub's CLI and SDK send", () => {
  it('are all here (a fixture dropped would drop its checks silently)', () => {
    expect(fixtures.map(([name]) => name)).toEqual([
      'delete-by-filter.graphql',
      'get-results-by-filter.graphql',
      'get-urns-by-filter.graphql',
      'graph-input-type-fields.graphql',
      'ingest-list-source-runs.graphql',
      'init-create-access-token.graphql',
      'lineage-cli.graphql',
      'schema-resolver-bulk-fetch.graphql',
      'sdk-lineage-get-lineage.graphql',
      'sdk-search-get-urns.graphql',
      'search-cli.graphql',
      'search-diagnose-keyword.graphql',
      'search-diagnose-ping.graphql',
      'search-diagnose-semantic-config.graphql',
      'search-diagnose-semantic-introspection.graphql',
    ]);
  });

  it.each(fixtures)('%s validates against Strata’s schema', (_name, document) => {
    expect(validate(served, parse(document)).map((error) => error.message)).toEqual([]);
  });

  it('validates the minified text the fixtures’ notes give for get_urns_by_filter (graphql-core’s printing)', () => {
    const readme = readFileSync(join(FIXTURES, 'README.md'), 'utf8');
    const example = /```\n\s*(query scrollUrnsWithFilters\([^\n]+)\n\s*```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    expect(print(parse(example!))).toBe(
      print(parse(readFileSync(join(FIXTURES, 'get-urns-by-filter.graphql'), 'utf8'))),
    );
    expect(validate(served, parse(example!))).toEqual([]);
  });

  it('validates the variants the notes describe: extra search flags, and the introspection of strip_unsupported_fields', () => {
    const getUrns = readFileSync(join(FIXTURES, 'get-urns-by-filter.graphql'), 'utf8')
      .replace(
        '$includeSoftDeleted: Boolean)',
        '$includeHiddenLifecycleStages: Boolean!,\n$includeSoftDeleted: Boolean)',
      )
      .replace(
        'includeSoftDeleted: $includeSoftDeleted',
        'includeHiddenLifecycleStages: $includeHiddenLifecycleStages\nincludeSoftDeleted: $includeSoftDeleted',
      );
    expect(getUrns).toContain('includeHiddenLifecycleStages: $includeHiddenLifecycleStages');
    expect(validate(served, parse(getUrns)).map((error) => error.message)).toEqual([]);
    expect(validate(served, parse(getIntrospectionQuery())).map((error) => error.message)).toEqual([]);
  });

  it('keeps DataHub’s refusals: a field neither schema has is refused with graphql-js’s message', () => {
    const errors = validate(served, parse('{ scrollAcrossEntities(input: {query: "*", bogus: 1}) { total } }'));
    expect(errors.map((error) => error.message)).toEqual([
      'Field "bogus" is not defined by type "ScrollAcrossEntitiesInput".',
    ]);
  });
});

describe('the executable schema', () => {
  it('builds from the SDL and every resolver of the API', () => {
    const schema = executableSchema(sdl, RESOLVERS);
    expect(schema.getQueryType()?.name).toBe('Query');
    // Every resolver given is on its field (none dropped on the way).
    for (const map of RESOLVERS) {
      for (const [typeName, fields] of Object.entries(map)) {
        const type = schema.getType(typeName);
        if (!isObjectType(type)) throw new Error(`${typeName} is no object type`);
        for (const fieldName of Object.keys(fields)) expect(type.getFields()[fieldName]?.resolve).toBeDefined();
      }
    }
  });

  it('resolves every root field it serves with a resolver of its own (none falls back to the default, which answers null)', () => {
    const schema = executableSchema(sdl, RESOLVERS);
    const unresolved = [schema.getQueryType(), schema.getMutationType()].flatMap((type) =>
      type === null || type === undefined
        ? []
        : Object.values(type.getFields())
            .filter((field) => field.resolve === undefined)
            .map((field) => `${type.name}.${field.name}`),
    );
    expect(unresolved).toEqual([]);
  });

  it('refuses a resolver of a field the SDL lacks, of a type it lacks, and two resolvers of one field', () => {
    const resolve = () => null;
    expect(() => executableSchema(sdl, [{ Query: { datasets: resolve } }])).toThrow(
      'A resolver for Query.datasets, which the schema lacks',
    );
    expect(() => executableSchema(sdl, [{ Nothing: { urn: resolve } }])).toThrow(
      'Resolvers for Nothing, which the GraphQL schema has no object type of',
    );
    const twice: ResolverMap[] = [{ Dataset: { name: resolve } }, { Dataset: { name: resolve } }];
    expect(() => executableSchema(sdl, twice)).toThrow('Two resolvers for Dataset.name');
    // A required argument stays required: the SDL is the contract, not the resolvers.
    const field = executableSchema(sdl, []).getQueryType()?.getFields()['dataset'];
    expect(field?.args.map((argument) => [argument.name, isNonNullType(argument.type)])).toEqual([['urn', true]]);
  });
});
