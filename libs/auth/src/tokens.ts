import { randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';

/** DataHub's kinds of access token: a login's, a user's personal one, a service account's. */
export type TokenType = 'SESSION' | 'PERSONAL' | 'SERVICE_ACCOUNT';

/**
 * The claims of an access token, as DataHub writes them: who (`actorType`, `actorId` — the user's id, not its URN —
 * and `sub`, the same id), what kind, `version` "1" for a token that is not stored (a session's) and "2" for one that
 * is (personal, service account: revoked by deleting its `dataHubAccessToken` entity), a unique `jti`, the issuer, and
 * `exp` in seconds unless it never expires.
 */
export interface TokenClaims {
  readonly actorType: 'USER';
  readonly actorId: string;
  readonly type: TokenType;
  readonly version: '1' | '2';
  readonly jti: string;
  readonly sub: string;
  readonly iss: string;
  /** Expiry, epoch seconds; absent for a token that never expires. */
  readonly exp?: number;
}

/** DataHub's token issuer, unless configured otherwise. */
export const DEFAULT_TOKEN_ISSUER = 'datahub-metadata-service';

/** How long a session token (a login's) lasts: a day, as in DataHub. */
export const SESSION_TOKEN_DURATION_MS = 86_400_000;

/** The lifetimes a personal token may be given, as DataHub names them; `NO_EXPIRY` never expires. */
export const ACCESS_TOKEN_DURATIONS = {
  ONE_HOUR: 3_600_000,
  ONE_DAY: 86_400_000,
  ONE_WEEK: 604_800_000,
  ONE_MONTH: 2_592_000_000,
  THREE_MONTHS: 7_776_000_000,
  SIX_MONTHS: 15_552_000_000,
  ONE_YEAR: 31_536_000_000,
  NO_EXPIRY: undefined,
} as const satisfies Record<string, number | undefined>;

export type AccessTokenDuration = keyof typeof ACCESS_TOKEN_DURATIONS;

/** The shortest signing key accepted: HS256 wants at least 256 bits of secret. */
export const MIN_SIGNING_KEY_BYTES = 32;

/** Why a token was refused (for the server's log: the client is told only that it is not authorized). */
export class TokenError extends Error {
  override readonly name = 'TokenError';
}

export interface TokenServiceOptions {
  /** `DATAHUB_TOKEN_SERVICE_SIGNING_KEY`: the HMAC key, as text (its UTF-8 bytes are the key, as in DataHub). */
  readonly signingKey: string;
  readonly issuer?: string;
  /** The clock, epoch milliseconds. */
  readonly now: () => number;
}

/**
 * Mints and verifies access tokens: JWTs signed with HS256 and nothing else. Verifying checks the signature, the
 * algorithm, the issuer, the expiry and the claims DataHub requires; whether a stored token was revoked, and whether
 * its user may still act, is for the caller to check against the catalog.
 */
export class TokenService {
  private readonly key: Uint8Array;
  private readonly issuer: string;

  constructor(private readonly options: TokenServiceOptions) {
    this.key = new TextEncoder().encode(options.signingKey);
    if (this.key.length < MIN_SIGNING_KEY_BYTES) {
      throw new Error(`The token signing key must be at least ${MIN_SIGNING_KEY_BYTES} bytes long`);
    }
    this.issuer = options.issuer ?? DEFAULT_TOKEN_ISSUER;
  }

  /** A new token for the user `actorId`, expiring after `durationMs` (never, when undefined). */
  async mint(
    actorId: string,
    type: TokenType,
    durationMs: number | undefined,
  ): Promise<{ token: string; claims: TokenClaims }> {
    const nowSeconds = Math.floor(this.options.now() / 1000);
    const claims: TokenClaims = {
      actorType: 'USER',
      actorId,
      type,
      version: type === 'SESSION' ? '1' : '2',
      jti: randomUUID(),
      sub: actorId,
      iss: this.issuer,
      ...(durationMs === undefined ? {} : { exp: nowSeconds + Math.ceil(durationMs / 1000) }),
    };
    const token = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt(nowSeconds)
      .sign(this.key);
    return { token, claims };
  }

  /** The claims of a token this service (or another with the same key) minted; a TokenError saying why not. */
  async verify(token: string): Promise<TokenClaims> {
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        issuer: this.issuer,
        currentDate: new Date(this.options.now()),
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new TokenError('Token has expired', { cause: error });
      if (error instanceof joseErrors.JOSEError) {
        throw new TokenError(`Unable to verify the provided token: ${error.code}`, { cause: error });
      }
      throw error;
    }
    return claimsOf(payload);
  }
}

const TOKEN_TYPES: ReadonlySet<string> = new Set<TokenType>(['SESSION', 'PERSONAL', 'SERVICE_ACCOUNT']);

function claimsOf(payload: Record<string, unknown>): TokenClaims {
  const { actorType, actorId, type, version, jti, sub, iss, exp } = payload;
  if (actorType !== 'USER' || typeof actorId !== 'string' || actorId === '' || sub !== actorId) {
    throw new TokenError("Found malformed or missing 'actor' claim");
  }
  if (typeof type !== 'string' || !TOKEN_TYPES.has(type)) throw new TokenError('Found malformed or missing token type');
  if ((version !== '1' && version !== '2') || (version === '1') !== (type === 'SESSION')) {
    throw new TokenError('Found malformed or missing token version');
  }
  if (typeof jti !== 'string' || jti === '') throw new TokenError('Found malformed or missing token id');
  return {
    actorType,
    actorId,
    type: type as TokenType,
    version,
    jti,
    sub,
    iss: iss as string,
    ...(typeof exp === 'number' ? { exp } : {}),
  };
}
