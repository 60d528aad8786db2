import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * A native user's password as `corpUserCredentials` keeps it: the salt, and the hash with the parameters it was made
 * with, `scrypt$<N>$<r>$<p>$<base64 hash>` — so that a later, stronger setting still verifies the hashes made before.
 */
export interface PasswordCredentials {
  readonly salt: string;
  readonly hashedPassword: string;
}

/** scrypt's cost: 2^15 × 8 × 128 bytes = 32 MiB of memory and some tens of milliseconds per hash (OWASP's minimum). */
const COST = { N: 32_768, r: 8, p: 1 } as const;
const KEY_BYTES = 64;
const SALT_BYTES = 16;
/** Above what the parameters need (128 × N × r), which Node's default limit (32 MiB) does not leave room for. */
const MAX_MEMORY = 64 * 1024 * 1024;
const PREFIX = 'scrypt';

/** Hashes a password with a fresh random salt. */
export async function hashPassword(password: string): Promise<PasswordCredentials> {
  const salt = randomBytes(SALT_BYTES).toString('base64');
  const hash = await derive(password, salt, COST);
  return { salt, hashedPassword: [PREFIX, COST.N, COST.r, COST.p, hash.toString('base64')].join('$') };
}

/**
 * Whether the password is the one the credentials were made from. Credentials in a form this does not know (DataHub's
 * own SHA-256 hashes, a damaged value) never verify. The comparison takes the same time wherever the hashes differ.
 */
export async function verifyPassword(password: string, credentials: PasswordCredentials): Promise<boolean> {
  const parts = credentials.hashedPassword.split('$');
  if (parts.length !== 5 || parts[0] !== PREFIX) return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const expected = Buffer.from(parts[4] ?? '', 'base64');
  if (!isCost(N) || !isCost(r) || !isCost(p) || expected.length !== KEY_BYTES) return false;
  if (N > COST.N * 4 || r > 32 || p > 16) return false; // parameters nobody here chose: refuse to spend on them
  // scrypt refuses some parameters (N not a power of two): such credentials verify nothing.
  const actual = await derive(password, credentials.salt, { N, r, p }).catch(() => undefined);
  return actual !== undefined && timingSafeEqual(actual, expected);
}

function derive(password: string, salt: string, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...cost, maxmem: MAX_MEMORY };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) => {
      if (error) reject(error);
      else resolve(key);
    });
  });
}

function isCost(value: number | undefined): value is number {
  return value !== undefined && Number.isSafeInteger(value) && value > 0;
}
