/**
 * The limits of one GraphQL request, measured on what DataHub's clients send: each fixture document (and the
 * introspection query DataHub's client sends when it strips fields a server lacks) is measured under the very rules of
 * limits.ts — tokens as the parser counts them, depth, aliases and cost as the validation rules count them — and the
 * defaults must leave room above the largest. Then each limit refuses a document just over it, with its message, as a
 * validation error (graphql-http answers a thrown rule with a 500, so a rule must report, not throw).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema, getIntrospectionQuery, GraphQLError, parse, validate, type DocumentNode } from 'graphql';
import { readGraphqlSchema } from '@strata/schemas';
import { DEFAULT_GRAPHQL_LIMITS, limitRules, type GraphqlLimits } from './limits';

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'e2e', 'fixtures', 'datahub-graphql');
const schema = buildSchema(
  readGraphqlSchema()
    .map((file) => file.text)
    .join('\n'),
);

/** Limits so high that none of them refuses anything: each measurement lowers one. */
const UNLIMITED: GraphqlLimits = {
  maxTokens: 1_000_000,
  maxDepth: 1_000_000,
  maxAliases: 1_000_000,
  maxCost: 1_000_000_000,
  timeBudgetMs: 1_000,
};

/** The messages of validating `document` under `limits`, whether the rules report them or throw them. */
function refusals(document: DocumentNode, limits: GraphqlLimits): string[] {
  try {
    return validate(schema, document, limitRules(limits)).map((error) => error.message);
  } catch (error) {
    if (error instanceof GraphQLError) return [`thrown: ${error.message}`];
    throw error;
  }
}

/** Whether the parser accepts `text` with at most `maxTokens` tokens. */
function parses(text: string, maxTokens: number): boolean {
  try {
    parse(text, { maxTokens });
    return true;
  } catch {
    return false;
  }
}

/** The least value of a limit that accepts (a binary search over `accepts`, which is monotone in the limit). */
function least(accepts: (limit: number) => boolean, high: number): number {
  let low = 0;
  let top = high;
  if (!accepts(top)) throw new Error(`refused even at ${top}`);
  while (low < top) {
    const middle = Math.floor((low + top) / 2);
    if (accepts(middle)) top = middle;
    else low = middle + 1;
  }
  return top;
}

interface Measure {
  readonly tokens: number;
  readonly depth: number;
  readonly aliases: number;
  readonly cost: number;
}

function measure(text: string): Measure {
  const document = parse(text);
  const under = (key: keyof GraphqlLimits) => (limit: number) =>
    refusals(document, { ...UNLIMITED, [key]: limit }).length === 0;
  return {
    tokens: least((limit) => parses(text, limit), UNLIMITED.maxTokens),
    depth: least(under('maxDepth'), UNLIMITED.maxDepth),
    aliases: least(under('maxAliases'), UNLIMITED.maxAliases),
    cost: least(under('maxCost'), UNLIMITED.maxCost),
  };
}

/** Every document DataHub's clients send, by name; the introspection query of `strip_unsupported_fields` among them. */
const documents: readonly (readonly [string, string])[] = [
  ...readdirSync(FIXTURES)
    .filter((name) => name.endsWith('.graphql'))
    .sort()
    .map((name) => [name, readFileSync(join(FIXTURES, name), 'utf8')] as const),
  ['introspection (graphql-core’s, sent by strip_unsupported_fields)', getIntrospectionQuery()],
];

const measured = documents.map(([name, text]) => ({ name, ...measure(text) }));
const largest = (key: keyof Measure) => Math.max(...measured.map((each) => each[key]));

describe("what DataHub's clients send, measured under the rules of limits.ts", () => {
  it('measures every document (printed when the run is verbose)', () => {
    expect(measured.length).toBeGreaterThanOrEqual(16);
    // The measurement itself is right: a tiny document has what it visibly has.
    expect(measure('{ a: appConfig { appVersion } b: appConfig { appVersion } }')).toEqual({
      tokens: 14,
      depth: 2,
      aliases: 2,
      // Each object field is 2 plus 1.5 times its scalar's 1: (2 + 1.5) twice.
      cost: 7,
    });
    for (const each of measured) expect(each.tokens).toBeGreaterThan(0);
    // The largest is the CLI's search document: 11 KB of fragments.
    expect(measured.reduce((most, each) => (each.tokens > most.tokens ? each : most)).name).toBe('search-cli.graphql');
    console.log(
      `GraphQL limits: largest measured ${JSON.stringify({
        tokens: largest('tokens'),
        depth: largest('depth'),
        aliases: largest('aliases'),
        cost: largest('cost'),
      })} of defaults ${JSON.stringify(DEFAULT_GRAPHQL_LIMITS)}\n${measured.map((each) => JSON.stringify(each)).join('\n')}`,
    );
  });

  it('leaves the defaults at least twice the largest tokens and cost, and room in depth and aliases', () => {
    expect(2 * largest('tokens')).toBeLessThanOrEqual(DEFAULT_GRAPHQL_LIMITS.maxTokens);
    expect(2 * largest('cost')).toBeLessThanOrEqual(DEFAULT_GRAPHQL_LIMITS.maxCost);
    expect(largest('depth') + 4).toBeLessThanOrEqual(DEFAULT_GRAPHQL_LIMITS.maxDepth);
    expect(2 * largest('aliases') + 10).toBeLessThanOrEqual(DEFAULT_GRAPHQL_LIMITS.maxAliases);
  });

  it.each(documents)('accepts %s under the defaults', (_name, text) => {
    expect(parses(text, DEFAULT_GRAPHQL_LIMITS.maxTokens)).toBe(true);
    expect(refusals(parse(text), DEFAULT_GRAPHQL_LIMITS)).toEqual([]);
  });
});

describe('each limit refuses a document just over it, with its message, as a validation error', () => {
  const limits = DEFAULT_GRAPHQL_LIMITS;
  /** The errors validation reports; a rule that throws instead fails the test (over HTTP it would be a 500). */
  const reported = (text: string) => validate(schema, parse(text), limitRules(limits)).map((error) => error.message);

  it('tokens: refused while parsing', () => {
    const text = `{ ${Array.from({ length: limits.maxTokens - 1 }, () => '__typename').join(' ')} }`;
    expect(parses(text, limits.maxTokens)).toBe(false);
    expect(() => parse(text, { maxTokens: limits.maxTokens })).toThrow(
      `Document contains more that ${limits.maxTokens} tokens. Parsing aborted.`,
    );
    // One token fewer parses.
    expect(parses(text.replace('{ __typename', '{'), limits.maxTokens)).toBe(true);
  });

  /** `{ entity(urn: "u") { ...on Container { container { container { … urn } } } } }`, `levels` fields deep. */
  const nested = (levels: number) =>
    `{ entity(urn: "u") { ... on Container { ${'container { '.repeat(levels - 2)}urn${' }'.repeat(levels - 2)} } } }`;

  it('depth: refused past the deepest nesting allowed', () => {
    expect(measure(nested(limits.maxDepth)).depth).toBe(limits.maxDepth);
    expect(reported(nested(limits.maxDepth))).toEqual([]);
    expect(reported(nested(limits.maxDepth + 1))).toEqual([
      expect.stringContaining(`Queries may nest at most ${limits.maxDepth} levels deep`),
    ]);
  });

  const aliased = (count: number) =>
    `{ ${Array.from({ length: count }, (_, index) => `a${index}: appConfig { appVersion }`).join(' ')} }`;

  it('aliases: refused past the most aliases allowed', () => {
    expect(reported(aliased(limits.maxAliases))).toEqual([]);
    expect(reported(aliased(limits.maxAliases + 1))).toEqual([
      expect.stringContaining(`Queries may use at most ${limits.maxAliases} aliases`),
    ]);
  });

  it('cost: refused past the costliest selection allowed', () => {
    // Scalars deep down (no fragment: graphql-armor counts a fragment spread again differently): each level's depth
    // factor multiplies the cost below it by 1.5.
    const levels = limits.maxDepth - 4;
    const leaf = 'urn properties { name description qualifiedName externalUrl }';
    const costly = (copies: number) =>
      `{ ${Array.from(
        { length: copies },
        (_, index) =>
          `c${index}: container(urn: "u") { ${'container { '.repeat(levels)}${leaf}${' }'.repeat(levels)} }`,
      ).join(' ')} }`;
    const perCopy = measure(costly(1)).cost;
    const copies = Math.floor(limits.maxCost / perCopy) + 1;
    expect(copies).toBeGreaterThan(1);
    expect(copies).toBeLessThanOrEqual(limits.maxAliases);
    expect(measure(costly(copies - 1)).cost).toBeLessThanOrEqual(limits.maxCost);
    expect(reported(costly(copies - 1))).toEqual([]);
    expect(reported(costly(copies))).toEqual([
      expect.stringContaining(`The query costs more than the limit of ${limits.maxCost}`),
    ]);
  });

  it('counts no alias of __typename (graphql-armor’s allow list)', () => {
    const text = `{ ${Array.from({ length: limits.maxAliases + 5 }, (_, index) => `t${index}: __typename`).join(' ')} }`;
    expect(reported(text)).toEqual([]);
  });
});
