import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { GraphQLError, type ValidationContext, type ValidationRule } from 'graphql';

/**
 * What one GraphQL request may ask for. A query beyond any of them is refused before it runs, with a message naming
 * the limit (a 400 with GraphQL's `errors`). The defaults fit every document DataHub's clients send with room to spare (measured in limits.spec.ts).
 */
export interface GraphqlLimits {
  /**
   * Tokens in the document, counted while it is parsed: a document of megabytes is refused before it is validated.
   * (A document of 10,000 plain fields is under it: validation and the cost limit judge that one.)
   */
  readonly maxTokens: number;
  /** Nesting of selections, fragments spread in place (introspection's nesting is bounded by graphql-js's own rule). */
  readonly maxDepth: number;
  readonly maxAliases: number;
  /** The cost of the selection: each object field 2, each scalar 1, times the depth factor. */
  readonly maxCost: number;
  /** How long one request may run: at the deadline it is answered `data: null` with an error. */
  readonly timeBudgetMs: number;
}

export const DEFAULT_GRAPHQL_LIMITS: GraphqlLimits = {
  maxTokens: 20_000,
  maxDepth: 20,
  maxAliases: 50,
  maxCost: 50_000,
  timeBudgetMs: 30_000,
};

/**
 * How a limit's refusal is told: as a validation error of the document (a 400 with GraphQL's `errors`), not thrown
 * (which the HTTP handler would answer with a 500), and without the rules' "Syntax Error" prefix (the document parsed).
 */
const reported = {
  propagateOnRejection: false,
  onReject: [
    (context: ValidationContext | null, error: GraphQLError) => {
      context?.reportError(new GraphQLError(error.message.replace(/^Syntax Error: /, '')));
    },
  ],
};

/** The validation rules that enforce {@link GraphqlLimits}, beside graphql-js's own rules. */
export function limitRules(limits: GraphqlLimits): ValidationRule[] {
  return [
    maxDepthRule({
      n: limits.maxDepth,
      flattenFragments: true,
      errorMessage: `Queries may nest at most ${limits.maxDepth} levels deep`,
      exposeLimits: false,
      ...reported,
    }),
    maxAliasesRule({
      n: limits.maxAliases,
      errorMessage: `Queries may use at most ${limits.maxAliases} aliases`,
      exposeLimits: false,
      ...reported,
    }),
    costLimitRule({
      maxCost: limits.maxCost,
      objectCost: 2,
      scalarCost: 1,
      depthCostFactor: 1.5,
      flattenFragments: true,
      ignoreIntrospection: true,
      errorMessage: `The query costs more than the limit of ${limits.maxCost} (fewer fields, less nesting)`,
      exposeLimits: false,
      ...reported,
    }),
  ];
}
