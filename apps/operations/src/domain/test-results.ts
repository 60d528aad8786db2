import { createHash } from 'node:crypto';
import {
  evaluateTest,
  parseTestDefinition,
  parseUrn,
  TEST_RESULTS_ASPECT,
  type EntityRegistry,
  type TestDefinition,
  type TestOutcome,
} from '@strata/model';

/** A metadata test as the evaluation uses it: its URN, its parsed definition, and the MD5 of the definition's text. */
export interface MetadataTest {
  readonly urn: string;
  readonly definition: TestDefinition;
  readonly definitionMd5: string;
}

/** A test as the writer stores it: its URN, its testInfo, and whether the test is soft-deleted. */
export interface StoredTest {
  readonly urn: string;
  readonly info: unknown;
  readonly removed?: boolean;
}

/** One outcome, as the `testResults` aspect keeps it (DataHub's TestResult). */
export interface TestResult {
  readonly test: string;
  readonly type: 'SUCCESS' | 'FAILURE';
  readonly testDefinitionMd5?: string;
  readonly lastComputed?: { readonly time: number; readonly actor: string };
}

/** An entity's outcomes: the tests it passes and those it fails, each list ordered by test URN. */
export interface Outcomes {
  readonly passing: readonly TestResult[];
  readonly failing: readonly TestResult[];
}

/** An entity to evaluate: its URN and the latest value of each of its aspects. */
export interface EntityState {
  readonly urn: string;
  readonly aspects: Readonly<Record<string, unknown>>;
}

/**
 * The tests in force: every stored test that is not soft-deleted and whose definition parses against the registry.
 * A test the registry no longer accepts (its model changed since it was written) is passed to `invalid` and left out.
 */
export function testsInForce(
  registry: EntityRegistry,
  stored: readonly StoredTest[],
  invalid: (urn: string, reason: string) => void,
): MetadataTest[] {
  const tests: MetadataTest[] = [];
  for (const test of stored) {
    if (test.removed === true) continue;
    const text = definitionOf(test.info);
    try {
      tests.push({
        urn: test.urn,
        definition: parseTestDefinition(text, registry),
        definitionMd5: createHash('md5').update(text).digest('hex'),
      });
    } catch (error) {
      invalid(test.urn, error instanceof Error ? error.message : String(error));
    }
  }
  return tests.sort((a, b) => compare(a.urn, b.urn));
}

/** The entity types a stored definition selects; undefined when it names none that parse (or there is none). */
export function typesSelected(registry: EntityRegistry, info: unknown): readonly string[] | undefined {
  try {
    return parseTestDefinition(definitionOf(info), registry).types;
  } catch {
    return undefined;
  }
}

/** The registry's name of the entity type of a URN; undefined for a URN of no registered type. */
export function entityTypeOf(registry: EntityRegistry, urn: string): string | undefined {
  const type = parseUrn(urn).entityType;
  return (
    registry.entity(type)?.name ??
    registry.entities().find((entity) => entity.name.toLowerCase() === type.toLowerCase())?.name
  );
}

/**
 * Evaluates `tests` on an entity: those whose `on` selects it land in `passing` or `failing`, the others nowhere.
 * Pure: the outcomes carry no stamp (see {@link resultsValue}).
 */
export function outcomesOf(entityType: string, entity: EntityState, tests: readonly MetadataTest[]): Outcomes {
  const passing: TestResult[] = [];
  const failing: TestResult[] = [];
  for (const test of tests) {
    const outcome: TestOutcome = evaluateTest(test.definition, { entityType, aspects: entity.aspects });
    if (outcome === undefined) continue;
    const result: TestResult = { test: test.urn, type: outcome, testDefinitionMd5: test.definitionMd5 };
    (outcome === 'SUCCESS' ? passing : failing).push(result);
  }
  return { passing, failing };
}

/** The outcomes a stored `testResults` value holds (none when absent or malformed). */
export function storedOutcomes(value: unknown): Outcomes {
  const list = (key: 'passing' | 'failing', type: TestResult['type']): TestResult[] => {
    const items = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
    if (!Array.isArray(items)) return [];
    return items
      .filter(
        (item): item is TestResult =>
          typeof item === 'object' && item !== null && typeof (item as { test?: unknown }).test === 'string',
      )
      .map((item) => ({ ...item, type }))
      .sort((a, b) => compare(a.test, b.test));
  };
  return { passing: list('passing', 'SUCCESS'), failing: list('failing', 'FAILURE') };
}

/** Whether two sets of outcomes say the same: the same tests passing and failing (stamps and digests aside). */
export function sameOutcomes(a: Outcomes, b: Outcomes): boolean {
  const key = (outcomes: Outcomes) =>
    [...outcomes.passing.map((result) => `+${result.test}`), ...outcomes.failing.map((result) => `-${result.test}`)]
      .sort()
      .join('\n');
  return key(a) === key(b);
}

/**
 * The outcomes to store after evaluating some tests only: those of `evaluated` tests are replaced by `computed`, the
 * others stored are kept as they are.
 */
export function mergeOutcomes(stored: Outcomes, computed: Outcomes, evaluated: ReadonlySet<string>): Outcomes {
  const kept = (results: readonly TestResult[]) => results.filter((result) => !evaluated.has(result.test));
  const byTest = (a: TestResult, b: TestResult) => compare(a.test, b.test);
  return {
    passing: [...kept(stored.passing), ...computed.passing].sort(byTest),
    failing: [...kept(stored.failing), ...computed.failing].sort(byTest),
  };
}

/** The `testResults` value storing outcomes, each computed result stamped with when and by whom. */
export function resultsValue(
  outcomes: Outcomes,
  stamp: { readonly time: number; readonly actor: string },
  computed: ReadonlySet<string>,
): { passing: TestResult[]; failing: TestResult[] } {
  const stamped = (result: TestResult): TestResult =>
    computed.has(result.test) ? { ...result, lastComputed: { time: stamp.time, actor: stamp.actor } } : result;
  return { passing: outcomes.passing.map(stamped), failing: outcomes.failing.map(stamped) };
}

/**
 * Keeping an entity's results current: the `testResults` value to store after evaluating every test in force on it,
 * or undefined when the outcome stored already says the same (nothing to write). Tests removed since drop out.
 */
export function reconcile(
  entityType: string,
  entity: EntityState,
  tests: readonly MetadataTest[],
  stamp: { readonly time: number; readonly actor: string },
): { passing: TestResult[]; failing: TestResult[] } | undefined {
  const computed = outcomesOf(entityType, entity, tests);
  if (sameOutcomes(storedOutcomes(entity.aspects[TEST_RESULTS_ASPECT]), computed)) return undefined;
  return resultsValue(computed, stamp, new Set(tests.map((test) => test.urn)));
}

/** Outcomes as an evaluation answers them: `{test, type}` per test. */
export function answerOf(outcomes: Outcomes): {
  passing: { test: string; type: 'SUCCESS' }[];
  failing: { test: string; type: 'FAILURE' }[];
} {
  return {
    passing: outcomes.passing.map((result) => ({ test: result.test, type: 'SUCCESS' as const })),
    failing: outcomes.failing.map((result) => ({ test: result.test, type: 'FAILURE' as const })),
  };
}

/** The JSON text of a stored testInfo's definition ('' when it has none, which does not parse). */
function definitionOf(info: unknown): string {
  const definition =
    typeof info === 'object' && info !== null ? (info as { definition?: { json?: unknown } }).definition : undefined;
  return typeof definition?.json === 'string' ? definition.json : '';
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
