/**
 * The browse page's location: `/browse` lists the platforms, `/browse/<platform>` the top of one platform's tree, and
 * `/browse/<platform>/<segment>/<segment>…` a level below it — each segment one `id` of the entities'
 * `browsePathsV2` (a platform instance or container URN, or a folder name), percent-encoded so that any segment (with
 * `/`, spaces or parentheses) survives the URL. This module parses and builds those URLs and the GraphQL filters a
 * level is read with. Pure (unit-tested in browse-path.spec.ts).
 */
import type { AndFilterInput, FacetFilterInput } from './search-state';

/** Groups shown per page of a level. */
export const GROUPS_PER_PAGE = 50;
/** Entities shown per page of a level. */
export const ENTITIES_PER_PAGE = 20;
/**
 * The most groups of one level read at once: the page shows them {@link GROUPS_PER_PAGE} at a time, and the entities
 * that sit at the level itself are those in none of them.
 */
export const GROUPS_READ = 1000;

const ROOT = '/browse';

export interface BrowseLocation {
  /** The platform's name (`snowflake`); undefined at the root, which lists the platforms. */
  readonly platform: string | undefined;
  /** The browse path below the platform: `browsePathsV2` segment ids, outermost first. */
  readonly path: readonly string[];
}

/** The location a console pathname names (`/browse/snowflake/urn%3Ali%3Acontainer%3Adb`); other paths are the root. */
export function parseBrowsePath(pathname: string): BrowseLocation {
  if (pathname !== ROOT && !pathname.startsWith(`${ROOT}/`)) return { platform: undefined, path: [] };
  const segments = pathname
    .slice(ROOT.length)
    .split('/')
    .filter((segment) => segment !== '')
    .map(decodeSegment);
  const [platform, ...path] = segments;
  return { platform, path };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The console URL of a location. */
export function browseHref(platform: string | undefined, path: readonly string[] = []): string {
  if (platform === undefined) return ROOT;
  return [ROOT, platform, ...path]
    .map((segment, index) => (index === 0 ? segment : encodeURIComponent(segment)))
    .join('/');
}

/** The URL one level down: the location with a segment added. */
export function childHref(location: BrowseLocation, segment: string): string {
  return browseHref(location.platform, [...location.path, segment]);
}

/** The platform URN of a platform name (`snowflake` → `urn:li:dataPlatform:snowflake`); a URN is kept. */
export function platformUrnOf(platform: string): string {
  return platform.startsWith('urn:li:dataPlatform:') ? platform : `urn:li:dataPlatform:${platform}`;
}

/** The platform name in a platform URN (`urn:li:dataPlatform:snowflake` → `snowflake`). */
export function platformNameOf(urn: string): string {
  return urn.replace(/^urn:li:dataPlatform:/, '');
}

/** One step of the breadcrumb trail: the segment (or platform) it names and the URL of its level. */
export interface Crumb {
  readonly segment: string;
  readonly href: string;
  readonly kind: 'root' | 'platform' | 'segment';
}

/** The trail from the root to the location, the location last. */
export function breadcrumbsOf(location: BrowseLocation): Crumb[] {
  const crumbs: Crumb[] = [{ segment: 'Platforms', href: ROOT, kind: 'root' }];
  if (location.platform === undefined) return crumbs;
  crumbs.push({ segment: location.platform, href: browseHref(location.platform), kind: 'platform' });
  location.path.forEach((segment, index) => {
    crumbs.push({ segment, href: browseHref(location.platform, location.path.slice(0, index + 1)), kind: 'segment' });
  });
  return crumbs;
}

/** The criteria that keep one platform's entities. */
function platformCriteria(location: BrowseLocation): FacetFilterInput[] {
  return location.platform === undefined
    ? []
    : [{ field: 'platform', values: [platformUrnOf(location.platform)], condition: 'EQUAL', negated: false }];
}

/** The `orFilters` of `browseV2` at a location: the platform's entities (the path is `browseV2`'s own argument). */
export function browseFiltersOf(location: BrowseLocation): AndFilterInput[] {
  const and = platformCriteria(location);
  return and.length === 0 ? [] : [{ and }];
}

/**
 * The `orFilters` of a search for the entities that sit at the location itself — whose browse path holds each segment
 * of the location and none of the groups one level down (those lie deeper). The index keeps a browse path's segments
 * as a set, so an entity whose path repeats a segment of the location in a group's place is not told apart.
 */
export function entitiesHereFiltersOf(location: BrowseLocation, groupNames: readonly string[]): AndFilterInput[] {
  const and: FacetFilterInput[] = [
    ...platformCriteria(location),
    ...location.path.map((segment): FacetFilterInput => ({
      field: 'browsePathV2',
      values: [segment],
      condition: 'EQUAL',
      negated: false,
    })),
  ];
  const deeper = groupNames.filter((name) => !location.path.includes(name));
  if (deeper.length > 0) and.push({ field: 'browsePathV2', values: [...deeper], condition: 'EQUAL', negated: true });
  return [{ and }];
}

/**
 * The `orFilters` of a search for every entity at or below the location (the platform's, holding each segment of the
 * path): what the page lists when a level holds too many entities for `browseV2` to group.
 */
export function entitiesUnderFiltersOf(location: BrowseLocation): AndFilterInput[] {
  return entitiesHereFiltersOf(location, []);
}

/** A 1-based page number from a URL parameter (anything else is page 1). */
export function pageParam(value: string | null): number {
  const page = Number(value ?? '1');
  return Number.isSafeInteger(page) && page >= 1 ? page : 1;
}

/** A readable name for a segment that is not an entity URN: the segment itself, or its last part for a URN. */
export function segmentLabel(segment: string): string {
  const instance = /^urn:li:dataPlatformInstance:\(urn:li:dataPlatform:[^,]+,(.+)\)$/.exec(segment);
  if (instance?.[1] !== undefined) return instance[1];
  const urn = /^urn:li:[A-Za-z]+:(.+)$/.exec(segment);
  return urn?.[1] ?? segment;
}
