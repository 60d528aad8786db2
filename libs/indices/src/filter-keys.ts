import { valueText } from './search-documents';
import type { FieldValue } from './search-index';

/**
 * The filter keys of {@link SqliteSearchIndex}: each document's field values as tokens of one more column of its FTS
 * table, written with the document, so that a text search with `EQUAL`/`IN`/`EXISTS` filters is one full-text query in
 * which FTS5 intersects the document lists (`keyedFilter` in `sqlite-search-sql.ts` writes the filter side). Pure.
 */

/**
 * The FTS column of filter keys: one token per field value (`v<field hex>x<value hex>`), one per field present
 * (`p<field hex>`), and {@link EVERY_DOCUMENT_KEY}. Hexadecimal keeps each key one token, exact (no case folding or
 * splitting by the tokenizer can touch it) and unable to equal a word of the text columns' queries.
 */
export const FILTER_KEYS_COLUMN = 'strata_filter_keys';

/** In every document's filter keys: the positive side of a filter group made only of exclusions. */
export const EVERY_DOCUMENT_KEY = 'all';

/** Values longer than this get no filter key; a criterion naming one is evaluated on `field_values` instead. */
const MAX_KEYED_VALUE_LENGTH = 256;

function hex(text: string): string {
  return Buffer.from(text, 'utf8').toString('hex');
}

/** The key of one field value; none for a value too long to key. */
export function valueKey(field: string, value: string): string | undefined {
  return value.length > MAX_KEYED_VALUE_LENGTH ? undefined : `v${hex(field)}x${hex(value)}`;
}

/** The key every document with a value of the field holds. */
export function presenceKey(field: string): string {
  return `p${hex(field)}`;
}

/**
 * A document's filter keys: its value keys and presence keys, and {@link EVERY_DOCUMENT_KEY}. A generator that yields
 * after every `valuesPerStep` values, so that a document of very many values can give the event loop turns.
 */
export function* filterKeys(
  fields: Readonly<Record<string, readonly FieldValue[]>>,
  valuesPerStep: number,
): Generator<void, string[], undefined> {
  const keys = new Set<string>([EVERY_DOCUMENT_KEY]);
  let keyed = 0;
  for (const [field, values] of Object.entries(fields)) {
    if (values.length > 0) keys.add(presenceKey(field));
    for (const value of values) {
      const key = valueKey(field, valueText(value));
      if (key !== undefined) keys.add(key);
      if (++keyed % valuesPerStep === 0) yield;
    }
  }
  return [...keys];
}

/** A key as an FTS5 expression on the filter keys column; undefined for no key. */
export function filterKeysExpression(key: string | undefined): string | undefined {
  return key === undefined ? undefined : `{${FILTER_KEYS_COLUMN}} : "${key}"`;
}
