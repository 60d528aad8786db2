import { useState, type SyntheticEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useGql } from '../../api/graphql';
import { restJson } from '../../api/rest';
import { useCan } from '../../api/session';
import {
  definitionSummary,
  outcomeCounts,
  outcomeFilter,
  parseDefinition,
  selectedTypes,
  TEST_RESULTS_PAGE_SIZE,
  TESTS_PAGE_SIZE,
  testsParams,
  testsStateOf,
  toYaml,
  type TestInfo,
  type TestOutcome,
  type TestsState,
} from '../../logic/admin-tests';
import { entityTypeLabel, entityTypeOfGraphql, platformName, platformOfUrn } from '../../logic/urn';
import { EmptyState, EntityLink, ErrorNotice, Loading, PageTitle, Pager, Pill } from '../../ui/components';
import { Markdown } from '../../ui/markdown';
import { AdminFailure, AdminGate, useRest } from './admin-ui';

/**
 * `/admin/tests`: the metadata tests (`urn:li:test:*`, searched and paged), each with how many entities pass and fail
 * it (the search facets `passingTests` and `failingTests`); the test open shows its definition as YAML or JSON with
 * its rules in words, and the entities passing or failing it, paged, linked to their pages. With Manage Tests, an
 * entity can be evaluated against the test (`POST /test?action=evaluate`, its outcome stored). State in the URL.
 */
export function Component() {
  return (
    <AdminGate page="tests">
      <Tests />
    </AdminGate>
  );
}

const TEST_SEARCH = `query consoleAdminTests($query: String!, $start: Int!, $count: Int!) {
  searchAcrossEntities(input: { types: [TEST], query: $query, start: $start, count: $count }) {
    total
    searchResults { entity { urn } }
  }
}`;

const OUTCOME_COUNTS = `query consoleAdminTestCounts($filters: [AndFilterInput!]) {
  aggregateAcrossEntities(input: {
    query: "*", orFilters: $filters, facets: ["passingTests", "failingTests"], searchFlags: { maxAggValues: 1000 }
  }) {
    facets { field aggregations { value count } }
  }
}`;

interface TestSearch {
  searchAcrossEntities: { total: number; searchResults: { entity: { urn: string } }[] } | null;
}

interface OutcomeCountsAnswer {
  aggregateAcrossEntities: {
    facets: { field: string; aggregations: { value: string; count: number }[] }[] | null;
  } | null;
}

type TestEntity = { urn: string; testInfo?: { value: TestInfo } };

function Tests() {
  const [params, setParams] = useSearchParams();
  const state = testsStateOf(params);
  const update = (next: Partial<TestsState>) => {
    setParams(testsParams({ ...state, ...next }));
  };
  const search = useGql<TestSearch>(TEST_SEARCH, {
    query: state.query === '' ? '*' : state.query,
    start: state.listStart,
    count: TESTS_PAGE_SIZE,
  });
  const urns = search.data?.searchAcrossEntities?.searchResults.map((result) => result.entity.urn) ?? [];
  const infos = useRest<TestEntity[]>(
    'POST',
    urns.length === 0 ? undefined : '/openapi/v3/entity/test/batchGet',
    urns.map((urn) => ({ urn, testInfo: {} })),
  );
  const counts = useGql<OutcomeCountsAnswer>(
    OUTCOME_COUNTS,
    {
      filters: [{ and: [{ field: 'passingTests', values: urns }] }, { and: [{ field: 'failingTests', values: urns }] }],
    },
    { pause: urns.length === 0 },
  );
  const tally = outcomeCounts(counts.data?.aggregateAcrossEntities?.facets);
  const infoOf = new Map((infos.data ?? []).map((entity) => [entity.urn, entity.testInfo?.value]));

  return (
    <>
      <PageTitle title="Metadata tests">Metadata tests</PageTitle>
      <p className="admin-lead">
        Tests check entities against rules (an owner, a description, a tag…); each entity keeps which tests it passes
        and fails.
      </p>
      <TestSearchForm
        key={state.query}
        query={state.query}
        onSearch={(query) => {
          update({ query, listStart: 0 });
        }}
      />
      {search.error !== undefined ? (
        <AdminFailure page="tests" error={search.error} retry={search.refetch} />
      ) : search.data === undefined ? (
        <Loading what="Loading tests" />
      ) : urns.length === 0 ? (
        <EmptyState>
          {state.query === ''
            ? 'No metadata test is defined. A test is an entity urn:li:test:<id> with a testInfo aspect, written like any other.'
            : 'No test matches this search.'}
        </EmptyState>
      ) : (
        <>
          {infos.error !== undefined ? <ErrorNotice error={infos.error} retry={infos.refetch} /> : null}
          <div className="table-wrap">
            <table className="table" aria-label="Metadata tests" aria-busy={search.fetching || infos.loading}>
              <thead>
                <tr>
                  <th scope="col">Test</th>
                  <th scope="col">Category</th>
                  <th scope="col">Checks</th>
                  <th scope="col">Passing</th>
                  <th scope="col">Failing</th>
                </tr>
              </thead>
              <tbody>
                {urns.map((urn) => {
                  const info = infoOf.get(urn);
                  const parsed = parseDefinition(info);
                  const outcome = tally.get(urn);
                  const open = state.test === urn;
                  return (
                    <tr key={urn} data-testid="test-row" aria-current={open ? 'true' : undefined}>
                      <td className="wrap-anywhere">
                        <Link to={`?${testsParams({ ...state, test: urn, start: 0, outcome: 'failing' }).toString()}`}>
                          {info?.name ?? urn}
                        </Link>
                        {open ? <span className="visually-hidden"> (open)</span> : null}
                        <div className="muted mono">{urn}</div>
                      </td>
                      <td>{info?.category ?? '—'}</td>
                      <td>
                        {parsed.ok
                          ? selectedTypes(parsed.value).map(entityTypeLabel).join(', ') || '—'
                          : infos.data === undefined
                            ? '…'
                            : 'no valid definition'}
                      </td>
                      <td>{counts.data === undefined ? '…' : (outcome?.passing ?? 0).toLocaleString()}</td>
                      <td>
                        {counts.data === undefined ? (
                          '…'
                        ) : (outcome?.failing ?? 0) > 0 ? (
                          <Pill kind="danger">{(outcome?.failing ?? 0).toLocaleString()}</Pill>
                        ) : (
                          '0'
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <Pager
            start={state.listStart}
            count={TESTS_PAGE_SIZE}
            total={search.data.searchAcrossEntities?.total ?? 0}
            onPage={(listStart) => {
              update({ listStart });
            }}
          />
        </>
      )}
      {state.test === undefined ? null : (
        <TestDetail key={state.test} test={state.test} state={state} counts={tally.get(state.test)} onState={update} />
      )}
    </>
  );
}

function TestSearchForm({ query, onSearch }: { readonly query: string; readonly onSearch: (query: string) => void }) {
  const [text, setText] = useState(query);
  function submit(event: SyntheticEvent) {
    event.preventDefault();
    onSearch(text.trim());
  }
  return (
    <form className="admin-toolbar" role="search" aria-label="Search tests" onSubmit={submit}>
      <div className="admin-field admin-field-wide">
        <label htmlFor="test-query">Search tests</label>
        <input
          id="test-query"
          type="search"
          value={text}
          onChange={(event) => {
            setText(event.target.value);
          }}
        />
      </div>
      <button type="submit" className="button">
        Search
      </button>
    </form>
  );
}

const TEST_RESULTS = `query consoleAdminTestResults($filters: [AndFilterInput!], $start: Int!, $count: Int!) {
  searchAcrossEntities(input: { query: "*", orFilters: $filters, start: $start, count: $count }) {
    total
    searchResults { entity { urn type } }
  }
}`;

interface TestResultsAnswer {
  searchAcrossEntities: { total: number; searchResults: { entity: { urn: string; type: string } }[] } | null;
}

function TestDetail({
  test,
  state,
  counts,
  onState,
}: {
  readonly test: string;
  readonly state: TestsState;
  readonly counts: { passing: number; failing: number } | undefined;
  readonly onState: (next: Partial<TestsState>) => void;
}) {
  const entity = useRest<TestEntity[]>('POST', '/openapi/v3/entity/test/batchGet', [{ urn: test, testInfo: {} }]);
  const info = entity.data?.[0]?.testInfo?.value;
  const parsed = parseDefinition(info);
  const results = useGql<TestResultsAnswer>(TEST_RESULTS, {
    filters: outcomeFilter(test, state.outcome),
    start: state.start,
    count: TEST_RESULTS_PAGE_SIZE,
  });
  const tab = (outcome: TestOutcome, label: string, count: number | undefined) => (
    <Link
      to={`?${testsParams({ ...state, outcome, start: 0 }).toString()}`}
      className={`tab${state.outcome === outcome ? ' active' : ''}`}
      aria-current={state.outcome === outcome ? 'page' : undefined}
    >
      {label}
      {count === undefined ? '' : ` (${count.toLocaleString()})`}
    </Link>
  );
  return (
    <section className="admin-section" aria-labelledby="test-title">
      <h2 id="test-title">{info?.name ?? test}</h2>
      <p className="muted mono">{test}</p>
      {entity.error !== undefined ? (
        <AdminFailure page="tests" error={entity.error} retry={entity.refetch} />
      ) : entity.data === undefined ? (
        <Loading what="Loading the test" />
      ) : entity.data.length === 0 || info === undefined ? (
        <EmptyState>This test has no testInfo: it is not defined (or was deleted).</EmptyState>
      ) : (
        <>
          {info.description ? <Markdown text={info.description} /> : null}
          {parsed.ok ? (
            <dl className="rules">
              <dt>Selects</dt>
              <dd>{definitionSummary(parsed.value).selects}</dd>
              <dt>Passes when</dt>
              <dd>{definitionSummary(parsed.value).requires}</dd>
            </dl>
          ) : (
            <p className="notice notice-error">{parsed.problem}</p>
          )}
          <h3>Definition</h3>
          <div className="pills" role="group" aria-label="Show the definition as">
            <button
              type="button"
              className="button button-small"
              aria-pressed={state.format === 'yaml'}
              onClick={() => {
                onState({ format: 'yaml' });
              }}
            >
              YAML
            </button>
            <button
              type="button"
              className="button button-small"
              aria-pressed={state.format === 'json'}
              onClick={() => {
                onState({ format: 'json' });
              }}
            >
              JSON
            </button>
          </div>
          <pre aria-label={`Definition as ${state.format === 'json' ? 'JSON' : 'YAML'}`} tabIndex={0}>
            {parsed.ok
              ? state.format === 'json'
                ? JSON.stringify(parsed.value, null, 2)
                : toYaml(parsed.value)
              : parsed.text}
          </pre>
        </>
      )}
      <h3>Results</h3>
      <nav className="tabs" aria-label="Outcome">
        {tab('failing', 'Failing', counts?.failing)}
        {tab('passing', 'Passing', counts?.passing)}
      </nav>
      {results.error !== undefined ? (
        <AdminFailure page="tests" error={results.error} retry={results.refetch} />
      ) : results.data === undefined ? (
        <Loading what="Loading results" />
      ) : (results.data.searchAcrossEntities?.searchResults.length ?? 0) === 0 ? (
        <EmptyState>
          No entity {state.outcome === 'failing' ? 'fails' : 'passes'} this test
          {state.outcome === 'failing' ? '' : ' yet'} (results are those stored on the entities by evaluations).
        </EmptyState>
      ) : (
        <>
          <div className="table-wrap">
            <table className="table" aria-label={state.outcome === 'failing' ? 'Entities failing' : 'Entities passing'}>
              <thead>
                <tr>
                  <th scope="col">Entity</th>
                  <th scope="col">Type</th>
                  <th scope="col">Platform</th>
                  <th scope="col">Outcome</th>
                </tr>
              </thead>
              <tbody>
                {results.data.searchAcrossEntities?.searchResults.map(({ entity: result }) => (
                  <tr key={result.urn} data-testid="test-result-row">
                    <td className="wrap-anywhere">
                      <EntityLink urn={result.urn} />
                    </td>
                    <td>{entityTypeLabel(entityTypeOfGraphql(result.type))}</td>
                    <td>{platformName(platformOfUrn(result.urn)) ?? '—'}</td>
                    <td>
                      {state.outcome === 'failing' ? <Pill kind="danger">fails</Pill> : <Pill kind="ok">passes</Pill>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            start={state.start}
            count={TEST_RESULTS_PAGE_SIZE}
            total={results.data.searchAcrossEntities?.total ?? 0}
            onPage={(start) => {
              onState({ start });
            }}
          />
        </>
      )}
      <EvaluateForm test={test} onEvaluated={results.refetch} />
    </section>
  );
}

interface EvaluationAnswer {
  value: { passing: { test: string }[]; failing: { test: string }[] };
}

/** With Manage Tests: evaluates one entity against the test and stores the outcome. */
function EvaluateForm({ test, onEvaluated }: { readonly test: string; readonly onEvaluated: () => void }) {
  const canManage = useCan('manageTests');
  const [urn, setUrn] = useState('');
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ urn: string; text: string } | undefined>();
  const [error, setError] = useState<unknown>();
  if (!canManage) return null;
  async function submit(event: SyntheticEvent) {
    event.preventDefault();
    const target = urn.trim();
    setBusy(true);
    setError(undefined);
    setOutcome(undefined);
    try {
      const answer = await restJson<EvaluationAnswer>(
        'POST',
        '/api/gms/test?action=evaluate',
        { urn: target, testUrns: [test], push: true },
        { 'X-DataHub-Sync-Index-Update': 'true' },
      );
      const passes = answer.value.passing.some((entry) => entry.test === test);
      const fails = answer.value.failing.some((entry) => entry.test === test);
      setOutcome({
        urn: target,
        text: passes ? 'passes the test' : fails ? 'fails the test' : 'is not selected by the test',
      });
      onEvaluated();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }
  return (
    <form className="admin-section" onSubmit={(event) => void submit(event)} aria-labelledby="evaluate-title">
      <h3 id="evaluate-title">Evaluate an entity</h3>
      <div className="admin-toolbar">
        <div className="admin-field admin-field-wide">
          <label htmlFor="evaluate-urn">Entity URN</label>
          <input
            id="evaluate-urn"
            value={urn}
            onChange={(event) => {
              setUrn(event.target.value);
            }}
          />
        </div>
        <button type="submit" className="button" disabled={busy || !urn.trim().startsWith('urn:li:')}>
          Evaluate and store
        </button>
      </div>
      {busy ? <Loading what="Evaluating" /> : null}
      {outcome === undefined ? null : (
        <p role="status">
          <EntityLink urn={outcome.urn} /> {outcome.text}; the outcome is stored on the entity.
        </p>
      )}
      {error === undefined ? null : <ErrorNotice error={error} />}
    </form>
  );
}
