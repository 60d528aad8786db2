import { lazy, Suspense, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { EmptyState, EntityLink, ErrorNotice, Loading, Pager, Pill, Time } from '../../ui/components';
import {
  aspectHistoryRows,
  comparedOrdinals,
  historyStateOf,
  urlVersionOf,
  versionOrdinals,
  writeOf,
  type AspectHistoryRow,
  type VersionWrite,
} from '../../logic/entity-history';
import { latestAspectsPath, useAspectVersions, useRestRead, type LatestAspects } from './rest-reads';

const VersionDiff = lazy(() => import('./version-diff').then((module) => ({ default: module.VersionDiff })));

/** How many versions of an aspect a page lists. */
const PAGE = 10;

/**
 * The entity's history: every aspect with how many versions it has had and its latest write; for the aspect chosen
 * (in the URL), its versions newest first — who wrote each, when, in which run — and a side-by-side diff of the two
 * versions chosen (`?aspect=…&left=…&right=…`, 0 the latest).
 */
export function HistoryTab({ urn, entityType }: { readonly urn: string; readonly entityType: string }) {
  const read = useRestRead<LatestAspects>(latestAspectsPath(urn));
  const [params] = useSearchParams();
  const state = historyStateOf(params);
  const rows = useMemo(() => (read.data === undefined ? [] : aspectHistoryRows(read.data.aspects)), [read.data]);
  if (read.error !== undefined) return <ErrorNotice error={read.error} retry={read.refetch} />;
  if (read.data === undefined) return <Loading what="Loading the history" />;
  const chosen = rows.find((row) => row.name === state.aspect);
  return (
    <div className="entity-history">
      <section aria-labelledby="aspects-heading" className="entity-section">
        <h2 id="aspects-heading">Aspects</h2>
        <p className="muted">
          Each aspect is versioned: every write that changed it made a new version. Choose one to see its versions and
          compare two of them.
        </p>
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Aspect</th>
                <th scope="col">Versions</th>
                <th scope="col">Last written</th>
                <th scope="col">By</th>
                <th scope="col">Run</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr
                  key={row.name}
                  aria-current={row.name === state.aspect ? 'true' : undefined}
                  className={row.name === state.aspect ? 'row-current' : undefined}
                >
                  <th scope="row">
                    <Link
                      to={{ search: `?aspect=${encodeURIComponent(row.name)}` }}
                      className="mono"
                      preventScrollReset
                    >
                      {row.name}
                    </Link>
                  </th>
                  <td>{row.versions}</td>
                  <WriteCells write={row} />
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      {state.aspect === undefined ? null : chosen === undefined ? (
        <EmptyState>
          <p>
            This entity has no aspect <code>{state.aspect}</code> now (it may have been removed).
          </p>
        </EmptyState>
      ) : (
        <AspectVersions key={chosen.name} urn={urn} entityType={entityType} aspect={chosen} />
      )}
    </div>
  );
}

/** The cells of who wrote, when and in which run. */
function WriteCells({ write }: { readonly write: VersionWrite }) {
  return (
    <>
      <td>
        <Time millis={write.time} />
      </td>
      <td>{write.actor === undefined ? <span className="muted">—</span> : <EntityLink urn={write.actor} />}</td>
      <td>
        {write.runId === undefined ? (
          <span className="muted">—</span>
        ) : (
          <Link to={`/admin/runs/${encodeURIComponent(write.runId)}`} className="mono">
            {write.runId}
          </Link>
        )}
      </td>
    </>
  );
}

/** One aspect's versions, a page at a time, with the two compared chosen by radio buttons (kept in the URL). */
function AspectVersions({
  urn,
  entityType,
  aspect,
}: {
  readonly urn: string;
  readonly entityType: string;
  readonly aspect: AspectHistoryRow;
}) {
  const [params, setParams] = useSearchParams();
  const state = historyStateOf(params);
  const latest = aspect.versions;
  const ordinals = versionOrdinals(latest, state.start, PAGE);
  const compared = comparedOrdinals(state, latest);
  // The radios follow a choice at once; the URL (which the comparison reads) follows a moment later, and then rules.
  const comparedKey = compared === undefined ? '' : `${compared.left}:${compared.right}`;
  const [pick, setPick] = useState<{ readonly madeAt: string; readonly left: number; readonly right: number }>();
  const picked = pick !== undefined && pick.madeAt === comparedKey ? pick : compared;
  const reads = useAspectVersions(urn, entityType, aspect.name, ordinals, latest);
  const comparedList = compared === undefined ? [] : [compared.left, compared.right];
  const comparedReads = useAspectVersions(urn, entityType, aspect.name, comparedList, latest);
  const update = (changes: Record<string, string | undefined>) => {
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [name, value] of Object.entries(changes)) {
          if (value === undefined) next.delete(name);
          else next.set(name, value);
        }
        return next;
      },
      { preventScrollReset: true },
    );
  };
  const choose = (side: 'left' | 'right', ordinal: number) => {
    const other = side === 'left' ? picked?.right : picked?.left;
    setPick({
      madeAt: comparedKey,
      left: side === 'left' ? ordinal : (other ?? ordinal),
      right: side === 'right' ? ordinal : (other ?? ordinal),
    });
    update({
      [side]: String(urlVersionOf(ordinal, latest)),
      [side === 'left' ? 'right' : 'left']: other === undefined ? undefined : String(urlVersionOf(other, latest)),
    });
  };
  const headingId = `versions-${aspect.name}`;
  const left = compared === undefined ? undefined : comparedReads.get(compared.left);
  const right = compared === undefined ? undefined : comparedReads.get(compared.right);
  return (
    <>
      <section aria-labelledby={headingId} className="entity-section">
        <h2 id={headingId}>
          Versions of <span className="mono">{aspect.name}</span>
        </h2>
        <div className="table-wrap">
          <table className="table history-versions">
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Written</th>
                <th scope="col">By</th>
                <th scope="col">Run</th>
                <th scope="col">Left</th>
                <th scope="col">Right</th>
              </tr>
            </thead>
            <tbody>
              {ordinals.map((ordinal) => {
                const version = reads.get(ordinal);
                return (
                  <tr key={ordinal} data-testid="aspect-version" data-version={ordinal}>
                    <th scope="row">
                      v{ordinal} {ordinal === latest ? <Pill kind="ok">latest</Pill> : null}
                    </th>
                    {version === undefined || version.loading ? (
                      <td colSpan={3}>
                        <span className="muted">Loading…</span>
                      </td>
                    ) : version.error !== undefined ? (
                      <td colSpan={3} className="form-error">
                        Could not read this version.
                      </td>
                    ) : version.aspect === undefined ? (
                      <td colSpan={3} className="muted">
                        This version is no longer stored.
                      </td>
                    ) : (
                      <WriteCells write={writeOf(version.aspect)} />
                    )}
                    <td>
                      <input
                        type="radio"
                        name="left-version"
                        checked={picked?.left === ordinal}
                        onChange={() => {
                          choose('left', ordinal);
                        }}
                        aria-label={`Compare version ${ordinal} on the left`}
                      />
                    </td>
                    <td>
                      <input
                        type="radio"
                        name="right-version"
                        checked={picked?.right === ordinal}
                        onChange={() => {
                          choose('right', ordinal);
                        }}
                        aria-label={`Compare version ${ordinal} on the right`}
                      />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <Pager
          start={state.start}
          count={PAGE}
          total={latest}
          onPage={(start) => {
            update({ start: start === 0 ? undefined : String(start) });
          }}
        />
      </section>
      <section aria-labelledby="diff-heading" className="entity-section">
        <h2 id="diff-heading">Compare versions</h2>
        {compared === undefined ? (
          <EmptyState>This aspect has a single version: there is nothing to compare it with.</EmptyState>
        ) : left === undefined || right === undefined || left.loading || right.loading ? (
          <Loading what="Loading the versions" />
        ) : left.error !== undefined || right.error !== undefined ? (
          <ErrorNotice error={left.error ?? right.error} />
        ) : (
          <Suspense fallback={<Loading what="Loading the comparison" />}>
            <VersionDiff
              leftLabel={`v${compared.left}${compared.left === latest ? ' (latest)' : ''}`}
              rightLabel={`v${compared.right}${compared.right === latest ? ' (latest)' : ''}`}
              left={left.aspect?.value}
              right={right.aspect?.value}
            />
          </Suspense>
        )}
      </section>
    </>
  );
}
