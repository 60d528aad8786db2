/**
 * The words of the Lineage tab: what a cut mark says and the action it offers, the accessible names of the controls
 * (stable: browser tests find the controls by them), and a node's counts. Pure (unit-tested in lineage-labels.spec.ts).
 */
import type { LineageCut, LineageDirection, NodeSide, ReachHops } from './lineage-graph';

/** `upstream` / `downstream`. */
export function directionWord(direction: LineageDirection): string {
  return direction === 'UPSTREAM' ? 'upstream' : 'downstream';
}

/** The accessible name of a node's expand (or collapse) control. */
export function expandLabel(direction: LineageDirection, name: string, expanded: boolean): string {
  return `${expanded ? 'Collapse' : 'Expand'} ${directionWord(direction)} of ${name}`;
}

/** How many neighbours a side has that are not shown (0 when unknown). */
export function hiddenCount(side: NodeSide): number {
  return side.known === undefined ? 0 : Math.max(0, side.known - side.shown);
}

/** The longer description of one side of a node (a tooltip, the details panel). */
export function sideSummary(direction: LineageDirection, side: NodeSide): string {
  const word = directionWord(direction);
  const known =
    side.known === undefined ? `${side.shown} ${word} shown` : `${side.shown} of ${side.known} ${word} shown`;
  const filtered =
    side.filtered > 0 ? `; ${side.filtered} more ${side.filtered === 1 ? 'is' : 'are'} not in the catalog` : '';
  return `${known}${filtered}`;
}

/** Whether a node has nothing in a direction, as far as answers say (its control is not offered). */
export function hasNone(side: NodeSide): boolean {
  return !side.loading && side.known === 0 && side.shown === 0;
}

/** What a cut mark says, and the action it offers (if any). */
export interface CutWords {
  readonly text: string;
  readonly detail: string;
  readonly action?: { readonly kind: 'more' | 'more-reach' | 'expand'; readonly text: string; readonly label: string };
}

function hopsWords(hops: ReachHops | undefined): string {
  if (hops === undefined || hops === 'all') return 'of the walk';
  return hops === 1 ? 'within 1 hop' : `within ${hops} hops`;
}

/** The words of a cut mark on the node named `name`. */
export function cutWords(
  cut: LineageCut,
  name: string,
  context: { readonly hops?: ReachHops | undefined; readonly expanded: boolean },
): CutWords {
  const word = directionWord(cut.direction);
  const count = cut.hidden === undefined ? '' : `+${cut.hidden.toLocaleString('en')} `;
  switch (cut.kind) {
    case 'page':
      return {
        text: `${count}more ${word}`,
        detail: `Only part of the ${word} lineage of ${name} was fetched.`,
        action: { kind: 'more', text: 'show more', label: `Show more ${word} of ${name}` },
      };
    case 'reach':
      return {
        text: `${count}more ${word} ${hopsWords(context.hops)}`,
        detail: `"Expand all" fetched one page of the ${word} walk.`,
        action: { kind: 'more-reach', text: 'show more', label: `Show more of the ${word} walk` },
      };
    case 'hops':
      return {
        text: `${count}more ${word} beyond ${context.hops === 1 ? '1 hop' : `${context.hops ?? ''} hops`}`,
        detail: `"Expand all" stopped at its hop limit here.`,
        ...(context.expanded
          ? {}
          : { action: { kind: 'expand', text: 'continue', label: `Continue ${word} of ${name}` } }),
      };
    case 'limits':
      return {
        text: `${word} walk cut by a server limit`,
        detail: `The server's lineage walk stopped here at one of its limits (entities, edges, paths or time).`,
        ...(context.expanded
          ? {}
          : { action: { kind: 'expand', text: 'continue', label: `Continue ${word} of ${name}` } }),
      };
  }
}
