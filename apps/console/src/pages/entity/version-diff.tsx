import { useMemo, useState } from 'react';
import { diffCounts, diffJson, foldUnchanged, type DiffLine, type DiffRow } from '../../logic/diff';

/** Unchanged lines kept around each change when the rest is folded. */
const CONTEXT = 3;

/**
 * Two versions of an aspect side by side, printed canonically (keys sorted, so a reordering is no change): removed
 * lines marked on the left (`diff-removed`), added ones on the right (`diff-added`), long unchanged runs folded until
 * asked for. Its own chunk (with jsdiff), loaded when a comparison is first shown.
 */
export function VersionDiff({
  leftLabel,
  rightLabel,
  left,
  right,
}: {
  readonly leftLabel: string;
  readonly rightLabel: string;
  readonly left: unknown;
  readonly right: unknown;
}) {
  const rows = useMemo(() => diffJson(left, right), [left, right]);
  const counts = diffCounts(rows);
  const [showAll, setShowAll] = useState(false);
  const shown = showAll ? rows : foldUnchanged(rows, CONTEXT);
  const same = counts.added === 0 && counts.removed === 0;
  return (
    <div className="version-diff-wrap">
      <div className="diff-summary">
        <p role="status">
          {same
            ? `${leftLabel} and ${rightLabel} hold the same value.`
            : `From ${leftLabel} to ${rightLabel}: ${lines(counts.removed)} removed, ${lines(counts.added)} added.`}
        </p>
        {shown.length !== rows.length || showAll ? (
          <button
            type="button"
            className="button button-small"
            onClick={() => {
              setShowAll((value) => !value);
            }}
          >
            {showAll ? 'Fold unchanged lines' : 'Show every line'}
          </button>
        ) : null}
      </div>
      <div className="table-wrap">
        <table className="version-diff" data-testid="version-diff">
          <caption className="visually-hidden">
            {leftLabel} (left) compared with {rightLabel} (right)
          </caption>
          <colgroup>
            <col className="diff-number-col" />
            <col />
            <col className="diff-number-col" />
            <col />
          </colgroup>
          <thead>
            <tr>
              <th scope="col" colSpan={2}>
                {leftLabel}
              </th>
              <th scope="col" colSpan={2}>
                {rightLabel}
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((row, index) =>
              row.kind === 'folded' ? (
                <tr key={`fold-${index}`} className="diff-folded">
                  <td colSpan={4}>
                    <button
                      type="button"
                      className="button button-quiet button-small"
                      onClick={() => {
                        setShowAll(true);
                      }}
                    >
                      {row.count} unchanged lines
                    </button>
                  </td>
                </tr>
              ) : (
                <DiffRowView key={`${row.left?.number ?? '-'}:${row.right?.number ?? '-'}`} row={row} />
              ),
            )}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function lines(count: number): string {
  return `${count} ${count === 1 ? 'line' : 'lines'}`;
}

function DiffRowView({ row }: { readonly row: DiffRow }) {
  const leftClass =
    row.kind === 'removed' || row.kind === 'changed' ? 'diff-removed' : row.left === undefined ? 'diff-empty' : '';
  const rightClass =
    row.kind === 'added' || row.kind === 'changed' ? 'diff-added' : row.right === undefined ? 'diff-empty' : '';
  return (
    <tr className={`diff-row diff-${row.kind}`}>
      <Side line={row.left} className={leftClass} mark={leftClass === 'diff-removed' ? '−' : ''} />
      <Side line={row.right} className={rightClass} mark={rightClass === 'diff-added' ? '+' : ''} />
    </tr>
  );
}

function Side({
  line,
  className,
  mark,
}: {
  readonly line: DiffLine | undefined;
  readonly className: string;
  readonly mark: string;
}) {
  return (
    <>
      <td className={`diff-number ${className}`}>{line?.number}</td>
      <td className={`diff-text ${className}`}>
        {line === undefined ? null : (
          <>
            {mark === '' ? null : (
              <>
                <span className="diff-mark" aria-hidden="true">
                  {mark}
                </span>
                <span className="visually-hidden">{mark === '+' ? 'added: ' : 'removed: '}</span>
              </>
            )}
            <code>{line.text}</code>
          </>
        )}
      </td>
    </>
  );
}
