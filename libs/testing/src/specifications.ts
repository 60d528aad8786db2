/**
 * Given/when/then for Strata's pure domain functions, in the manner of Emmett's decider and projection specifications:
 * a test states the state before, what happens, and what must follow, and nothing else. Behind its own entry
 * (`@strata/testing/specifications`) because it asserts with jest's `expect`.
 */
import { expect } from '@jest/globals';

/** An expectation: the value expected (compared with `toEqual`), or a function that asserts on the actual one. */
export type Expectation<T> = T | ((actual: T) => void);

/**
 * A decider's specification: `decide(command, state)` takes a command (a proposal) and the current state (the stored
 * aspects) and returns a decision, without I/O.
 *
 * ```ts
 * const spec = deciderSpecification((proposal, current) => decide(proposal, current, context));
 * spec.given(nothingStored).when(upsert).then((decision) => expect(decision.outcome.status).toBe('APPLIED'));
 * spec.given(existing).when(create).thenThrows(ConflictError);
 * ```
 */
export function deciderSpecification<Command, State, Decision>(decide: (command: Command, state: State) => Decision) {
  return {
    given: (state: State) => ({
      when: (command: Command) => ({
        /** Decides, checks the decision, and returns it for further checks. */
        then: (expected: Expectation<Decision>): Decision => {
          const decision = decide(command, state);
          check(decision, expected);
          return decision;
        },
        /** Decides and expects it to throw (an error class, or a message part). */
        thenThrows: (expected?: (new (...args: never[]) => Error) | string | RegExp): void => {
          expect(() => decide(command, state)).toThrow(expected);
        },
      }),
    }),
  };
}

/**
 * A projection's specification: `evolve(state, event)` folds events into a read model's state (a search document).
 * The `given` events build the state; the `when` events are the ones under test.
 *
 * ```ts
 * const spec = projectionSpecification(evolveDocument, undefined);
 * spec.given(tagged('A')).when(tagged('B')).then((document) => expect(document?.aspects).toEqual({...}));
 * ```
 */
export function projectionSpecification<State, Event>(evolve: (state: State, event: Event) => State, initial: State) {
  const fold = (state: State, events: readonly Event[]): State => events.reduce(evolve, state);
  const when =
    (before: State) =>
    (...events: Event[]) => ({
      /** Folds the events, checks the state after them, and returns it. */
      then: (expected: Expectation<State>): State => {
        const after = fold(before, events);
        check(after, expected);
        return after;
      },
    });
  return {
    given: (...events: Event[]) => ({ when: when(fold(initial, events)) }),
    when: when(initial),
  };
}

function check<T>(actual: T, expected: Expectation<T>): void {
  if (typeof expected === 'function') (expected as (actual: T) => void)(actual);
  else expect(actual).toEqual(expected);
}
