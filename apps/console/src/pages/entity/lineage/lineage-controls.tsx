import { createContext, useContext, useId } from 'react';
import type { LineageDirection, LineageNode, ReachHops } from '../../../logic/lineage-graph';
import { cutWords, expandLabel, hasNone, hiddenCount, sideSummary } from '../../../logic/lineage-labels';

/** What the graph's and the list's controls do (the tab provides them). */
export interface LineageActions {
  readonly toggle: (urn: string, direction: LineageDirection) => void;
  readonly more: (urn: string, direction: LineageDirection) => void;
  readonly moreReach: () => void;
  readonly select: (urn: string) => void;
  readonly open: (urn: string) => void;
  readonly selected: string | undefined;
  readonly hops: ReachHops | undefined;
}

export const LineageActionsContext = createContext<LineageActions | undefined>(undefined);

export function useLineageActions(): LineageActions {
  const actions = useContext(LineageActionsContext);
  if (actions === undefined) throw new Error('useLineageActions outside the Lineage tab');
  return actions;
}

/**
 * A node's expand / collapse control for one direction (nothing when the node has no lineage that way). The button
 * shows `+` or `−`, its name says what it does (`Expand upstream of orders`), and how many neighbours are not shown
 * is a badge beside it, which the button's description also says.
 */
export function ExpandButton({
  node,
  direction,
  className,
}: {
  readonly node: LineageNode;
  readonly direction: LineageDirection;
  readonly className?: string;
}) {
  const actions = useLineageActions();
  const id = useId();
  const side = direction === 'UPSTREAM' ? node.upstream : node.downstream;
  if (hasNone(side)) return null;
  const hidden = hiddenCount(side);
  return (
    <span className={`lineage-expand-wrap ${className ?? ''}`}>
      <button
        type="button"
        className="lineage-expand nodrag"
        aria-label={expandLabel(direction, node.entity.name, side.expanded)}
        aria-expanded={side.expanded}
        aria-busy={side.loading}
        aria-describedby={id}
        title={sideSummary(direction, side)}
        onClick={() => {
          actions.toggle(node.entity.urn, direction);
        }}
      >
        {side.loading ? '…' : side.expanded ? '−' : '+'}
      </button>
      {hidden > 0 && !side.expanded ? (
        <span className="lineage-expand-count" aria-hidden="true">
          {hidden.toLocaleString('en')}
        </span>
      ) : null}
      <span id={id} className="visually-hidden">
        {sideSummary(direction, side)}
      </span>
    </span>
  );
}

/** The marks where a traversal was cut at a limit, each with what lifts it. */
export function CutMarks({ node, className }: { readonly node: LineageNode; readonly className?: string }) {
  const actions = useLineageActions();
  return (
    <>
      {node.cuts.map((cut) => {
        const side = cut.direction === 'UPSTREAM' ? node.upstream : node.downstream;
        const words = cutWords(cut, node.entity.name, { hops: actions.hops, expanded: side.expanded });
        const action = words.action;
        return (
          <div
            key={`${cut.direction}-${cut.kind}`}
            className={`lineage-cut lineage-cut-${cut.kind} ${className ?? ''}`}
            data-testid="lineage-cut"
            title={words.detail}
          >
            <span>{words.text}</span>
            {action === undefined ? null : (
              <>
                {' — '}
                <button
                  type="button"
                  className="lineage-cut-action nodrag"
                  aria-label={action.label}
                  onClick={() => {
                    if (action.kind === 'more') actions.more(node.entity.urn, cut.direction);
                    else if (action.kind === 'more-reach') actions.moreReach();
                    else actions.toggle(node.entity.urn, cut.direction);
                  }}
                >
                  {action.text}
                </button>
              </>
            )}
          </div>
        );
      })}
    </>
  );
}
