import { ValidationError } from '@strata/model';

/**
 * The `scrollId` of `scrollAcrossLineage`, pure: where the next page starts, and a fingerprint of the query it was
 * issued for. Strata keeps nothing between calls (each page walks the graph afresh, so it is never stale), so the
 * cursor carries what the next call needs: the offset into the ordered matches. A cursor given with another query
 * is refused rather than read as an offset into different results.
 */

interface Cursor {
  readonly offset: number;
  readonly query: string;
}

/** The cursor of the page starting at `offset` of `query` (JSON values that identify the query). */
export function encodeScrollId(offset: number, query: readonly unknown[]): string {
  const cursor: Cursor = { offset, query: fingerprint(query) };
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

/** The offset a cursor points to; `ValidationError` when it is malformed or was issued for another query. */
export function decodeScrollId(scrollId: string, query: readonly unknown[]): number {
  let cursor: unknown;
  try {
    cursor = JSON.parse(Buffer.from(scrollId, 'base64url').toString('utf8'));
  } catch {
    throw new ValidationError(`Invalid scrollId ${JSON.stringify(scrollId)}`);
  }
  const { offset, query: issuedFor } = (typeof cursor === 'object' && cursor !== null ? cursor : {}) as Partial<
    Record<keyof Cursor, unknown>
  >;
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0 || typeof issuedFor !== 'string') {
    throw new ValidationError(`Invalid scrollId ${JSON.stringify(scrollId)}`);
  }
  if (issuedFor !== fingerprint(query)) {
    throw new ValidationError('The scrollId was issued for another query: start again without scrollId');
  }
  return offset;
}

/** Two 32-bit FNV-1a hashes of the query's JSON, as 16 hex digits: enough to tell queries apart, not a secret. */
function fingerprint(query: readonly unknown[]): string {
  const text = JSON.stringify(query);
  let first = 0x811c9dc5;
  let second = 0x01000193 ^ text.length;
  for (let index = 0; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    first = Math.imul(first ^ unit, 0x01000193) >>> 0;
    second = Math.imul(second ^ unit, 0x01000193 + 2) >>> 0;
  }
  return first.toString(16).padStart(8, '0') + second.toString(16).padStart(8, '0');
}
