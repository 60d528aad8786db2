/**
 * Every way a request can come without valid credentials, as DataHub's own authentication tests send them: each must
 * be refused with 401 wherever credentials are required. `[case, Authorization header or undefined for none]`.
 */
export const REFUSED_CREDENTIALS: readonly (readonly [string, string | undefined])[] = [
  ['no header', undefined],
  ['a malformed token', 'Bearer invalid.jwt.token'],
  ['Bearer with nothing', 'Bearer'],
  ['Bearer and a space', 'Bearer '],
  ['a lower-case bearer with junk', 'bearer invalid-token'],
  ['base64 Basic credentials', 'Basic dXNlcjpwYXNz'],
  ['an unknown prefix', 'InvalidPrefix token'],
];

/** The headers carrying one of {@link REFUSED_CREDENTIALS}. */
export function authorizationHeaders(authorization: string | undefined): Record<string, string> {
  return authorization === undefined ? {} : { Authorization: authorization };
}
