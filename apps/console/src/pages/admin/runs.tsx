import { useState, type SyntheticEvent } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import {
  pageOf,
  runPath,
  RUNS_PAGE_SIZE,
  runsListParams,
  runsListStateOf,
  type RunSummary,
} from '../../logic/admin-runs';
import { EmptyState, Loading, PageTitle, Time } from '../../ui/components';
import { AdminFailure, AdminGate, MorePager, useRest } from './admin-ui';
import { RunActor } from './run-actor';

/**
 * `/admin/runs`: the ingestion runs that last wrote some value, newest first (`POST /runs?action=list`, DataHub's
 * `datahub ingest list-runs`), 20 a page, each with when it last wrote, how many values it holds and who wrote it.
 * The page and whether soft-deleted entities count are in the URL.
 */
export function Component() {
  return (
    <AdminGate page="runs">
      <Runs />
    </AdminGate>
  );
}

function Runs() {
  const [params, setParams] = useSearchParams();
  const state = runsListStateOf(params);
  const navigate = useNavigate();
  const [goTo, setGoTo] = useState('');
  const runs = useRest<{ value: RunSummary[] }>('POST', '/runs?action=list', {
    pageOffset: state.start,
    pageSize: RUNS_PAGE_SIZE + 1,
    includeSoft: state.includeSoft,
  });
  const page = pageOf(runs.data?.value ?? [], RUNS_PAGE_SIZE);

  function open(event: SyntheticEvent) {
    event.preventDefault();
    const runId = goTo.trim();
    if (runId !== '') void navigate(runPath(runId));
  }

  return (
    <>
      <PageTitle title="Ingestion runs">Ingestion runs</PageTitle>
      <p className="admin-lead">
        Every value keeps the run id of the ingestion that wrote it. A run is listed while it is the last writer of some
        value; open one to see what it wrote and to roll it back.
      </p>
      <div className="admin-toolbar">
        <form className="admin-inline-form" onSubmit={open} role="search" aria-label="Open a run">
          <div className="admin-field admin-field-wide">
            <label htmlFor="run-id">Run id</label>
            <input
              id="run-id"
              value={goTo}
              placeholder="e.g. postgres-2026_11_23-10_00_00"
              onChange={(event) => {
                setGoTo(event.target.value);
              }}
            />
          </div>
          <button type="submit" className="button" disabled={goTo.trim() === ''}>
            Open run
          </button>
        </form>
        <label className="admin-check">
          <input
            type="checkbox"
            checked={state.includeSoft}
            onChange={(event) => {
              setParams(runsListParams({ start: 0, includeSoft: event.target.checked }));
            }}
          />
          Count the values of soft-deleted entities
        </label>
      </div>
      {runs.error !== undefined ? (
        <AdminFailure page="runs" error={runs.error} retry={runs.refetch} />
      ) : runs.data === undefined ? (
        <Loading what="Loading runs" />
      ) : page.rows.length === 0 ? (
        <EmptyState>
          {state.start > 0 ? (
            <>
              No runs on this page. <Link to="/admin/runs">Back to the first page</Link>
            </>
          ) : (
            'No ingestion run has written anything yet: values written without a run id are not listed.'
          )}
        </EmptyState>
      ) : (
        <>
          <div className="table-wrap">
            <table className="table" aria-label="Ingestion runs" aria-busy={runs.loading}>
              <thead>
                <tr>
                  <th scope="col">Run</th>
                  <th scope="col">Last written</th>
                  <th scope="col">Values it holds</th>
                  <th scope="col">Written by</th>
                </tr>
              </thead>
              <tbody>
                {page.rows.map((run) => (
                  <tr key={run.runId} data-testid="run-row">
                    <td className="wrap-anywhere">
                      <Link to={runPath(run.runId)}>{run.runId}</Link>
                    </td>
                    <td className="nowrap">
                      <Time millis={run.timestamp} />
                    </td>
                    <td>{run.rows.toLocaleString()}</td>
                    <td>
                      <RunActor runId={run.runId} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <MorePager
            start={state.start}
            count={RUNS_PAGE_SIZE}
            shown={page.rows.length}
            hasMore={page.hasMore}
            noun="Runs"
            onPage={(start) => {
              setParams(runsListParams({ ...state, start }));
            }}
          />
        </>
      )}
    </>
  );
}
