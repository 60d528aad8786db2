import { z } from 'zod';

/**
 * Splits a Rest.li protocol-2 list `List(a,b,c)` into its items. Items may contain balanced parentheses and commas —
 * URNs such as `urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)` — which stay whole. Returns undefined when the text is
 * not a `List(...)`.
 */
export function parseRestliList(text: string): string[] | undefined {
  const match = /^List\((.*)\)$/s.exec(text.trim());
  if (!match) return undefined;
  const inner = match[1] ?? '';
  if (inner === '') return [];
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < inner.length; index++) {
    const char = inner[index];
    if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (char === ',' && depth === 0) {
      items.push(inner.slice(start, index));
      start = index + 1;
    }
  }
  items.push(inner.slice(start));
  return items.map((item) => item.trim());
}

/**
 * A query parameter holding a list, in every form Rest.li clients send: protocol 2 `aspects=List(a,b)`, protocol 1
 * repeated `aspects=a&aspects=b`, or a single value.
 */
export function restliListParam() {
  return z.preprocess(
    (value) => {
      const values: unknown[] = Array.isArray(value) ? (value as unknown[]) : value === undefined ? [] : [value];
      return values.flatMap((item) => (typeof item === 'string' ? (parseRestliList(item) ?? [item]) : [item]));
    },
    z.array(z.string().min(1)),
  );
}

/** A boolean as Rest.li and OpenAPI clients send it: true/false, as a JSON boolean or a string. */
export function booleanParam() {
  return z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')]);
}
