import {
  breadcrumbsOf,
  browseFiltersOf,
  browseHref,
  childHref,
  entitiesHereFiltersOf,
  entitiesUnderFiltersOf,
  pageParam,
  parseBrowsePath,
  platformNameOf,
  platformUrnOf,
  segmentLabel,
} from './browse-path';

describe('browse locations in the URL', () => {
  it('reads the root, a platform and a path', () => {
    expect(parseBrowsePath('/browse')).toEqual({ platform: undefined, path: [] });
    expect(parseBrowsePath('/browse/')).toEqual({ platform: undefined, path: [] });
    expect(parseBrowsePath('/browse/snowflake')).toEqual({ platform: 'snowflake', path: [] });
    expect(parseBrowsePath('/browse/snowflake/urn%3Ali%3Acontainer%3Adb1/urn%3Ali%3Acontainer%3Asch1')).toEqual({
      platform: 'snowflake',
      path: ['urn:li:container:db1', 'urn:li:container:sch1'],
    });
  });

  it('keeps segments holding slashes, spaces and parentheses whole', () => {
    const instance = 'urn:li:dataPlatformInstance:(urn:li:dataPlatform:hive,eu west/1)';
    const href = browseHref('hive', [instance, 'a folder/with slash']);
    expect(href).toBe(
      '/browse/hive/urn%3Ali%3AdataPlatformInstance%3A(urn%3Ali%3AdataPlatform%3Ahive%2Ceu%20west%2F1)/a%20folder%2Fwith%20slash',
    );
    expect(parseBrowsePath(href)).toEqual({ platform: 'hive', path: [instance, 'a folder/with slash'] });
  });

  it('drops empty segments and keeps a malformed escape as it is', () => {
    expect(parseBrowsePath('/browse/hive//a/')).toEqual({ platform: 'hive', path: ['a'] });
    expect(parseBrowsePath('/browse/hive/100%')).toEqual({ platform: 'hive', path: ['100%'] });
  });

  it('treats another page as the root', () => {
    expect(parseBrowsePath('/browser/x')).toEqual({ platform: undefined, path: [] });
  });

  it('builds the URLs of the root, a platform and a level below', () => {
    expect(browseHref(undefined)).toBe('/browse');
    expect(browseHref('looker')).toBe('/browse/looker');
    expect(childHref({ platform: 'looker', path: ['a'] }, 'b c')).toBe('/browse/looker/a/b%20c');
  });

  it('gives the breadcrumb trail', () => {
    expect(breadcrumbsOf({ platform: undefined, path: [] })).toEqual([
      { segment: 'Platforms', href: '/browse', kind: 'root' },
    ]);
    expect(breadcrumbsOf({ platform: 'hive', path: ['a', 'b'] })).toEqual([
      { segment: 'Platforms', href: '/browse', kind: 'root' },
      { segment: 'hive', href: '/browse/hive', kind: 'platform' },
      { segment: 'a', href: '/browse/hive/a', kind: 'segment' },
      { segment: 'b', href: '/browse/hive/a/b', kind: 'segment' },
    ]);
  });
});

describe('what a level reads', () => {
  it('filters browseV2 on the platform', () => {
    expect(browseFiltersOf({ platform: undefined, path: [] })).toEqual([]);
    expect(browseFiltersOf({ platform: 'hive', path: ['a'] })).toEqual([
      { and: [{ field: 'platform', values: ['urn:li:dataPlatform:hive'], condition: 'EQUAL', negated: false }] },
    ]);
  });

  it('finds the entities at a level: on the path, in none of the groups below', () => {
    expect(entitiesHereFiltersOf({ platform: 'hive', path: ['a', 'b'] }, ['c', 'd'])).toEqual([
      {
        and: [
          { field: 'platform', values: ['urn:li:dataPlatform:hive'], condition: 'EQUAL', negated: false },
          { field: 'browsePathV2', values: ['a'], condition: 'EQUAL', negated: false },
          { field: 'browsePathV2', values: ['b'], condition: 'EQUAL', negated: false },
          { field: 'browsePathV2', values: ['c', 'd'], condition: 'EQUAL', negated: true },
        ],
      },
    ]);
  });

  it('at the top of a platform, keeps the entities with no browse path or none of the groups', () => {
    expect(entitiesHereFiltersOf({ platform: 'hive', path: [] }, [])).toEqual([
      { and: [{ field: 'platform', values: ['urn:li:dataPlatform:hive'], condition: 'EQUAL', negated: false }] },
    ]);
  });

  it('finds every entity at or below a level, for a level too large to group', () => {
    expect(entitiesUnderFiltersOf({ platform: 'hive', path: ['a'] })).toEqual([
      {
        and: [
          { field: 'platform', values: ['urn:li:dataPlatform:hive'], condition: 'EQUAL', negated: false },
          { field: 'browsePathV2', values: ['a'], condition: 'EQUAL', negated: false },
        ],
      },
    ]);
  });

  it('never excludes a segment of the path itself', () => {
    const filters = entitiesHereFiltersOf({ platform: 'hive', path: ['a'] }, ['a']);
    expect(filters[0]?.and).toHaveLength(2);
  });
});

describe('names and pages', () => {
  it('maps platform names and URNs', () => {
    expect(platformUrnOf('hive')).toBe('urn:li:dataPlatform:hive');
    expect(platformUrnOf('urn:li:dataPlatform:hive')).toBe('urn:li:dataPlatform:hive');
    expect(platformNameOf('urn:li:dataPlatform:hive')).toBe('hive');
  });

  it('labels segments that name no loaded entity', () => {
    expect(segmentLabel('prod')).toBe('prod');
    expect(segmentLabel('urn:li:container:abc')).toBe('abc');
    expect(segmentLabel('urn:li:dataPlatformInstance:(urn:li:dataPlatform:hive,eu)')).toBe('eu');
  });

  it('reads page numbers', () => {
    expect(pageParam(null)).toBe(1);
    expect(pageParam('3')).toBe(3);
    expect(pageParam('0')).toBe(1);
    expect(pageParam('x')).toBe(1);
  });
});
