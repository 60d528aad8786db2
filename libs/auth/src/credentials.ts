/**
 * What a request presents in its `Authorization` header, as DataHub's metadata service reads it:
 * - `Bearer <token>` (or `bearer <token>`): an access token;
 * - `Basic <client id>:<secret>`: the system client — the pair itself, not base64 (DataHub's own convention, which its
 *   frontend and internal callers use).
 */
export type Credentials =
  | { readonly kind: 'token'; readonly token: string }
  | { readonly kind: 'system'; readonly clientId: string; readonly secret: string };

/** Why a header carries no usable credentials (for the server's log; the client is told only that it is refused). */
export type CredentialsProblem =
  'missing' | 'empty bearer token' | 'unknown scheme' | 'malformed system client credentials';

/** The credentials of an `Authorization` header, or why there are none. */
export function credentialsOf(header: string | undefined): Credentials | { readonly problem: CredentialsProblem } {
  if (header === undefined || header.trim() === '') return { problem: 'missing' };
  const match = /^(\S+)(?: +(.*))?$/s.exec(header.trim());
  const scheme = match?.[1] ?? '';
  const rest = (match?.[2] ?? '').trim();
  if (scheme === 'Bearer' || scheme === 'bearer') {
    return rest === '' ? { problem: 'empty bearer token' } : { kind: 'token', token: rest };
  }
  if (scheme === 'Basic') {
    const colon = rest.indexOf(':');
    if (colon <= 0 || colon === rest.length - 1) return { problem: 'malformed system client credentials' };
    return { kind: 'system', clientId: rest.slice(0, colon), secret: rest.slice(colon + 1) };
  }
  return { problem: 'unknown scheme' };
}
