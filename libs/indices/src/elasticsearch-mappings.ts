import { createHash } from 'node:crypto';

import type { estypes } from '@elastic/elasticsearch';

import { browsePathsOf, documentFields, valueNumber, valueText } from './search-documents';
import type { FieldValue, SearchDocument } from './search-index';
import { analyze, autocompleteKeys, fold } from './search-query';
import type { EntitySearchSchema, IndexField } from './search-schema';

/**
 * The Elasticsearch layout of the search documents: index names, settings and mappings generated from the
 * {@link EntitySearchSchema}, and the `_source` of a document. Pure.
 *
 * One index per entity type, named as DataHub names it (`datasetindex_v2`, `<prefix>_corpgroupindex_v2`), one shard
 * (relevance statistics, facet counts and browse groups are then exact, as DataHub's default of one shard per index
 * gives), `dynamic: strict` (only what is below is ever indexed). A document's `_id` is its URN.
 *
 * Every schema field `f` with values is indexed in two places:
 * - **`f`**, at the top level, typed as DataHub types it: `long` for COUNT and DATETIME (epoch milliseconds), `double`
 *   for DOUBLE, `boolean` for BOOLEAN, else a normalizer-free `keyword` holding each value's text. Facets aggregate
 *   it and `EQUAL` filters match it.
 * - under the object **`strata`**, the forms the SQLite adapter compares, computed here with the same functions so
 *   that both engines see the same words, keys and paths:
 *   - `strata.words.f` (text fields): each value's {@link analyze}d words joined by spaces, in a whitespace-tokenized
 *     `text` field: what query words, phrases and prefixes match;
 *   - `strata.folded.f`: each value {@link fold}ed (case and accents), a `keyword`: what wildcards and `CONTAIN`,
 *     `START_WITH`, `END_WITH` match;
 *   - `strata.numbers.f`: each value that is a number (numeric strings too), a `double`: what range conditions compare
 *     against a numeric criterion value;
 *   - `strata.fields`: the names of the fields that have a value (`EXISTS`, `IS_NULL`).
 *
 * Besides: `strata.aspects`, each aspect's contribution as written (`enabled: false`: kept, never indexed), from
 * which `documents()` and `matchedFields` are answered; `strata.browse.paths` (the normalized browse paths) and
 * `strata.browse.prefixes` (each of those paths and all its ancestors but the root), which answer a browse level; and
 * `strata.suggestions`, nested rows `{rankedKey, field, value}`, one per {@link autocompleteKeys} key of every
 * autocomplete field value, `rankedKey` being the rank (`0`: the value's start, `1`: a later word) followed by the key.
 */

/** The top-level object holding Strata's derived forms; no schema field may have this name. */
export const STRATA_OBJECT = 'strata';

/** Paths of the fields under {@link STRATA_OBJECT}. */
export const strataPaths = {
  aspects: 'strata.aspects',
  fields: 'strata.fields',
  browsePaths: 'strata.browse.paths',
  browsePrefixes: 'strata.browse.prefixes',
  suggestions: 'strata.suggestions',
  suggestionRankedKey: 'strata.suggestions.rankedKey',
  suggestionField: 'strata.suggestions.field',
  words: (field: string): string => `strata.words.${field}`,
  folded: (field: string): string => `strata.folded.${field}`,
  numbers: (field: string): string => `strata.numbers.${field}`,
} as const;

/** The analyzer of `strata.words.*`: whitespace only, the words being analyzed already. */
export const WORDS_ANALYZER = 'strata_words';

/**
 * Longest keyword value indexed, in characters: 8191 UTF-16 units are at most 32764 UTF-8 bytes, under Lucene's
 * 32766-byte term limit. A longer value is kept in `_source` but not indexed in that keyword field (its words are).
 */
export const MAX_KEYWORD_LENGTH = 8191;

/** Longest URN used as it is for `_id` (Elasticsearch's limit, in bytes); a longer one is hashed. */
const MAX_ID_BYTES = 512;

/** How a field's values are typed in its top-level field. */
export type ValueKind = 'keyword' | 'long' | 'double' | 'boolean';

export function valueKind(field: IndexField): ValueKind {
  switch (field.type) {
    case 'COUNT':
    case 'DATETIME':
      return 'long';
    case 'DOUBLE':
      return 'double';
    case 'BOOLEAN':
      return 'boolean';
    default:
      return 'keyword';
  }
}

/**
 * DataHub's index name of an entity type: `<prefix>_<entity>index_v2`, lowercased (`datasetindex_v2`,
 * `p_corpgroupindex_v2`); no prefix when `prefix` is empty.
 */
export function searchIndexName(prefix: string, entityType: string): string {
  return `${prefix === '' ? '' : `${prefix}_`}${entityType}index_v2`.toLowerCase();
}

/** The `_id` of a URN's document: the URN, or when longer than Elasticsearch allows, a digest of it. */
export function documentId(urn: string): string {
  if (Buffer.byteLength(urn, 'utf8') <= MAX_ID_BYTES) return urn;
  return `sha256:${createHash('sha256').update(urn).digest('hex')}`;
}

export interface SearchIndexDefinition {
  readonly settings: estypes.IndicesIndexSettings;
  readonly mappings: estypes.MappingTypeMapping & { properties: Record<string, estypes.MappingProperty> };
}

/** Settings and mappings of an entity's index. */
export function searchIndexDefinition(entity: EntitySearchSchema): SearchIndexDefinition {
  const properties: Record<string, estypes.MappingProperty> = {};
  const words: Record<string, estypes.MappingProperty> = {};
  const folded: Record<string, estypes.MappingProperty> = {};
  const numbers: Record<string, estypes.MappingProperty> = {};
  for (const field of entity.fields) {
    properties[field.name] = topLevelMapping(field);
    if (field.text) words[field.name] = { type: 'text', analyzer: WORDS_ANALYZER };
    folded[field.name] = { type: 'keyword', ignore_above: MAX_KEYWORD_LENGTH };
    numbers[field.name] = { type: 'double' };
  }
  const keyword: estypes.MappingProperty = { type: 'keyword', ignore_above: MAX_KEYWORD_LENGTH };
  properties[STRATA_OBJECT] = {
    properties: {
      aspects: { type: 'object', enabled: false },
      fields: { type: 'keyword' },
      words: { properties: words },
      folded: { properties: folded },
      numbers: { properties: numbers },
      browse: { properties: { paths: keyword, prefixes: keyword } },
      suggestions: {
        type: 'nested',
        properties: {
          rankedKey: keyword,
          field: { type: 'keyword' },
          value: { type: 'keyword', index: false, doc_values: false },
        },
      },
    },
  };
  return {
    settings: {
      number_of_shards: 1,
      analysis: {
        // Query words are at most 4096 characters long (the longest search text): no word is cut shorter.
        tokenizer: { [WORDS_ANALYZER]: { type: 'whitespace', max_token_length: 4096 } },
        analyzer: { [WORDS_ANALYZER]: { type: 'custom', tokenizer: WORDS_ANALYZER } },
      },
    },
    mappings: { dynamic: 'strict', properties },
  };
}

function topLevelMapping(field: IndexField): estypes.MappingProperty {
  switch (valueKind(field)) {
    case 'long':
      // A value out of range is left out of this field (it stays in strata.*) instead of failing the document.
      return { type: 'long', ignore_malformed: true };
    case 'double':
      return { type: 'double', ignore_malformed: true };
    case 'boolean':
      return { type: 'boolean' };
    case 'keyword':
      return { type: 'keyword', ignore_above: MAX_KEYWORD_LENGTH };
  }
}

/** One nested autocomplete row of a document. */
export interface SuggestionRow {
  readonly rankedKey: string;
  readonly field: string;
  readonly value: string;
}

/** The `_source` of a document in its entity's index (see the layout above). */
export function searchSource(document: SearchDocument, entity: EntitySearchSchema): Record<string, unknown> {
  const fields = documentFields(document);
  const source: Record<string, unknown> = {};
  const words: Record<string, string[]> = {};
  const folded: Record<string, string[]> = {};
  const numbers: Record<string, number[]> = {};
  const present: string[] = [];
  for (const field of entity.fields) {
    const values = fields[field.name];
    if (values === undefined || values.length === 0) continue;
    present.push(field.name);
    const typed = typedValues(field, values);
    // A single value is stored as itself (`"urn": "…"`, `"removed": false`), several as an array.
    if (typed.length > 0) source[field.name] = typed.length === 1 ? typed[0] : typed;
    if (field.text) words[field.name] = values.map((value) => analyze(valueText(value)).join(' '));
    folded[field.name] = values.map((value) => fold(valueText(value)));
    const numeric = values.flatMap((value) => {
      const number = valueNumber(value);
      return number === undefined ? [] : [number];
    });
    if (numeric.length > 0) numbers[field.name] = numeric;
  }
  const paths = browsePathsOf(fields);
  source[STRATA_OBJECT] = {
    aspects: document.aspects,
    fields: present,
    words,
    folded,
    numbers,
    browse: { paths, prefixes: browsePrefixes(paths) },
    suggestions: suggestionRows(fields, entity),
  };
  return source;
}

/** The values as the top-level field's type takes them; values that are not of that type are left out of it. */
function typedValues(field: IndexField, values: readonly FieldValue[]): FieldValue[] {
  switch (valueKind(field)) {
    case 'long':
    case 'double':
      return values.flatMap((value) => {
        const number = valueNumber(value);
        return number === undefined ? [] : [number];
      });
    case 'boolean':
      return values.flatMap((value) => {
        if (typeof value === 'boolean') return [value];
        return value === 'true' || value === 'false' ? [value === 'true'] : [];
      });
    case 'keyword':
      return values.map(valueText);
  }
}

/** Every path and each of its ancestors but the root, once: `/a/b` → `/a`, `/a/b`. */
function browsePrefixes(paths: readonly string[]): string[] {
  const prefixes = new Set<string>();
  for (const path of paths) {
    let end = path.indexOf('/', 1);
    while (end > 0) {
      prefixes.add(path.slice(0, end));
      end = path.indexOf('/', end + 1);
    }
    prefixes.add(path);
  }
  return [...prefixes];
}

function suggestionRows(
  fields: Readonly<Record<string, readonly FieldValue[]>>,
  entity: EntitySearchSchema,
): SuggestionRow[] {
  const rows: SuggestionRow[] = [];
  for (const field of entity.autocompleteFields) {
    for (const value of fields[field.name] ?? []) {
      const text = valueText(value);
      autocompleteKeys(text).forEach((key, index) => {
        rows.push({ rankedKey: `${index === 0 ? 0 : 1}${key}`, field: field.name, value: text });
      });
    }
  }
  return rows;
}
