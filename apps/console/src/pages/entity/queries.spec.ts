import { buildSchema, parse, validate, type GraphQLSchema } from 'graphql';
import { readGraphqlSchema } from '@strata/schemas';
import { RELATED_QUERY, SCHEMA_QUERY, STATS_QUERY, entityQueryOf, hasEntityQuery } from './queries';
import { graphqlObjectTypeOf } from '../../logic/entity-kinds';

/** Every read of the entity page is valid against Strata's GraphQL schema (the SDL the gateway serves). */
describe('the entity page queries', () => {
  let schema: GraphQLSchema;
  beforeAll(() => {
    schema = buildSchema(
      readGraphqlSchema()
        .map((file) => file.text)
        .join('\n'),
    );
  });

  const errorsOf = (query: string) => validate(schema, parse(query)).map((error) => error.message);

  it.each([
    'dataset',
    'chart',
    'dashboard',
    'dataFlow',
    'dataJob',
    'container',
    'corpuser',
    'corpGroup',
    'tag',
    'glossaryTerm',
    'glossaryNode',
    'domain',
    'dataProduct',
    'dataPlatform',
    'mlModel',
    'mlModelGroup',
    'mlFeature',
    'mlFeatureTable',
    'mlPrimaryKey',
  ])('reads a %s', (entityType) => {
    const graphqlType = graphqlObjectTypeOf(entityType);
    expect(hasEntityQuery(graphqlType)).toBe(true);
    expect(errorsOf(entityQueryOf(graphqlType as string))).toEqual([]);
  });

  it('reads related entities, a schema and stats', () => {
    expect(errorsOf(RELATED_QUERY)).toEqual([]);
    expect(errorsOf(SCHEMA_QUERY)).toEqual([]);
    expect(errorsOf(STATS_QUERY)).toEqual([]);
  });
});
