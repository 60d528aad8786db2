/**
 * The Lineage tab's state in the URL, so that a lineage view is a link: which entities are expanded in which
 * direction (and by how many pages), "expand all" and its hops, columns on or off, the selected entity, and graph or
 * list. Pure (unit-tested in lineage-state.spec.ts).
 *
 * Parameters: `up` and `down` (repeated) name an expanded entity's URN, prefixed `<pages>~` when more than one page
 * is shown (`2~urn:li:…`); the centre is expanded one page each way unless they say otherwise (`0~<centre>`:
 * collapsed). `hops` is `1`, `2` or `all`, with `~<pages>` for more pages; `columns=1`; `node=<urn>` the selected
 * entity; `view=list`. Other parameters of the page are kept.
 */
import type { Expansion, LineageDirection, LineageRequest, ReachHops } from './lineage-graph';

export interface LineageViewState extends LineageRequest {
  readonly selected?: string | undefined;
  readonly view: 'graph' | 'list';
}

const PARAM_OF: Readonly<Record<LineageDirection, string>> = { UPSTREAM: 'up', DOWNSTREAM: 'down' };
const OWN_PARAMS = ['up', 'down', 'hops', 'columns', 'node', 'view'];

/** The most expansions a URL may name (each is at most one request; more are ignored). */
export const MAX_EXPANSIONS = 200;
/** The most pages one expansion or "expand all" may ask. */
export const MAX_PAGES = 50;

/** `<pages>~<value>` → pages and value; a value without a count is one page. */
function paged(text: string): { pages: number; value: string } {
  const match = /^(\d{1,3})~(.*)$/s.exec(text);
  if (match === null) return { pages: 1, value: text };
  return { pages: Math.min(Number(match[1]), MAX_PAGES), value: match[2] ?? '' };
}

/** The view state a URL's parameters give, for the lineage of `center`. */
export function readLineageState(params: URLSearchParams, center: string): LineageViewState {
  const expansions: Expansion[] = [];
  for (const direction of ['UPSTREAM', 'DOWNSTREAM'] as const) {
    const named = new Map<string, number>();
    for (const text of params.getAll(PARAM_OF[direction])) {
      const { pages, value } = paged(text);
      if (value.startsWith('urn:li:')) named.set(value, pages);
    }
    if (!named.has(center)) expansions.push({ urn: center, direction, pages: 1 });
    for (const [urn, pages] of named) expansions.push({ urn, direction, pages });
  }
  const hopsText = params.get('hops');
  const reach = hopsText === null ? undefined : reachOf(hopsText);
  const selected = params.get('node') ?? undefined;
  return {
    center,
    expansions: expansions.slice(0, MAX_EXPANSIONS),
    reach,
    columns: params.get('columns') === '1',
    selected: selected?.startsWith('urn:li:') === true ? selected : undefined,
    view: params.get('view') === 'list' ? 'list' : 'graph',
  };
}

function reachOf(text: string): { hops: ReachHops; pages: number } | undefined {
  const [hopsText, pagesText] = text.split('~');
  const hops: ReachHops | undefined =
    hopsText === '1' ? 1 : hopsText === '2' ? 2 : hopsText === 'all' ? 'all' : undefined;
  if (hops === undefined) return undefined;
  const pages = pagesText === undefined ? 1 : Number(pagesText);
  return { hops, pages: Number.isInteger(pages) && pages >= 1 ? Math.min(pages, MAX_PAGES) : 1 };
}

/** The URL parameters of a view state, keeping `base`'s other parameters. */
export function writeLineageState(
  state: LineageViewState,
  base: URLSearchParams = new URLSearchParams(),
): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of base) if (!OWN_PARAMS.includes(key)) params.append(key, value);
  for (const expansion of state.expansions) {
    const isDefault = expansion.urn === state.center && expansion.pages === 1;
    if (isDefault || (expansion.pages === 0 && expansion.urn !== state.center)) continue;
    const prefix = expansion.pages === 1 ? '' : `${expansion.pages}~`;
    params.append(PARAM_OF[expansion.direction], `${prefix}${expansion.urn}`);
  }
  if (state.reach !== undefined) {
    params.set('hops', `${state.reach.hops}${state.reach.pages > 1 ? `~${state.reach.pages}` : ''}`);
  }
  if (state.columns) params.set('columns', '1');
  if (state.selected !== undefined) params.set('node', state.selected);
  if (state.view === 'list') params.set('view', 'list');
  return params;
}

/** How many pages an entity is expanded in a direction (0: not expanded). */
export function pagesOf(state: LineageRequest, urn: string, direction: LineageDirection): number {
  return state.expansions.find((item) => item.urn === urn && item.direction === direction)?.pages ?? 0;
}

function withPages(state: LineageViewState, urn: string, direction: LineageDirection, pages: number): LineageViewState {
  const others = state.expansions.filter((item) => !(item.urn === urn && item.direction === direction));
  const kept = pages === 0 && urn !== state.center ? others : [...others, { urn, direction, pages }];
  return { ...state, expansions: kept };
}

/** Expands an entity one hop in a direction, or collapses it when it is expanded. */
export function toggleExpansion(state: LineageViewState, urn: string, direction: LineageDirection): LineageViewState {
  return withPages(state, urn, direction, pagesOf(state, urn, direction) > 0 ? 0 : 1);
}

/** Shows one more page of an entity's neighbours in a direction. */
export function showMore(state: LineageViewState, urn: string, direction: LineageDirection): LineageViewState {
  return withPages(state, urn, direction, Math.min(pagesOf(state, urn, direction) + 1, MAX_PAGES));
}

/** "Expand all" to some hops (its first page), or back to the expansions alone. */
export function withReach(state: LineageViewState, hops: ReachHops | undefined): LineageViewState {
  return { ...state, reach: hops === undefined ? undefined : { hops, pages: 1 } };
}

/** One more page of "expand all". */
export function showMoreReach(state: LineageViewState): LineageViewState {
  if (state.reach === undefined) return state;
  return { ...state, reach: { ...state.reach, pages: Math.min(state.reach.pages + 1, MAX_PAGES) } };
}

/** The view as it first opens: one hop each way, nothing else. */
export function resetLineageState(state: LineageViewState): LineageViewState {
  const expansions = (['UPSTREAM', 'DOWNSTREAM'] as const).map((direction) => ({
    urn: state.center,
    direction,
    pages: 1,
  }));
  return { center: state.center, expansions, reach: undefined, columns: state.columns, view: state.view };
}
