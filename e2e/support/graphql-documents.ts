/**
 * The GraphQL documents DataHub's CLI and SDK send (e2e/fixtures/datahub-graphql, one file per caller) and the way
 * DataHub's client puts them on the wire: minified since it minifies every request (parsed, printed back from the
 * syntax tree, every run of whitespace outside string literals made one space; string literals byte for byte).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, print } from 'graphql';

/** The folder of the fixture documents and of DataHub's schema facts. */
export const GRAPHQL_FIXTURES = join(__dirname, '..', 'fixtures', 'datahub-graphql');

/** The names of the fixture documents (without `.graphql`). */
export type FixtureDocument =
  | 'delete-by-filter'
  | 'get-results-by-filter'
  | 'get-urns-by-filter'
  | 'graph-input-type-fields'
  | 'ingest-list-source-runs'
  | 'init-create-access-token'
  | 'lineage-cli'
  | 'schema-resolver-bulk-fetch'
  | 'sdk-lineage-get-lineage'
  | 'sdk-search-get-urns'
  | 'search-cli'
  | 'search-diagnose-keyword'
  | 'search-diagnose-ping'
  | 'search-diagnose-semantic-config'
  | 'search-diagnose-semantic-introspection';

/** A fixture document as the client builds it, before minifying. */
export function fixtureDocument(name: FixtureDocument): string {
  return readFileSync(join(GRAPHQL_FIXTURES, `${name}.graphql`), 'utf8');
}

/**
 * The document as DataHub's client sends it (`minify_graphql_query`): parsed and printed back, then every run of
 * whitespace outside string literals (`"…"` and block `"""…"""`) collapsed to one space. A document that does not
 * parse is sent as it is, as the client does.
 */
export function minifyGraphql(document: string): string {
  let printed: string;
  try {
    printed = print(parse(document));
  } catch {
    return document;
  }
  let out = '';
  let index = 0;
  while (index < printed.length) {
    const character = printed[index]!;
    if (printed.startsWith('"""', index)) {
      const end = printed.indexOf('"""', index + 3);
      out += printed.slice(index, end + 3);
      index = end + 3;
    } else if (character === '"') {
      let end = index + 1;
      while (printed[end] !== '"') end += printed[end] === '\\' ? 2 : 1;
      out += printed.slice(index, end + 1);
      index = end + 1;
    } else if (/\s/.test(character)) {
      while (index < printed.length && /\s/.test(printed[index]!)) index += 1;
      out += ' ';
    } else {
      out += character;
      index += 1;
    }
  }
  return out.trim();
}
