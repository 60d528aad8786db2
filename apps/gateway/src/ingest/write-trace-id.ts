import { randomBytes } from 'node:crypto';

/** A W3C trace id: 32 lowercase hexadecimal digits, not all zero. */
const W3C_TRACE_ID = /^(?!0{32}$)[0-9a-f]{32}$/;

/** Whether `id` can travel in a `traceparent` header as its trace id. */
export function isW3cTraceId(id: string): boolean {
  return W3C_TRACE_ID.test(id);
}

/** Makes the random halves of trace and span ids (injected: tests pass fixed ones). */
export type RandomHex = (bytes: number) => string;

/** Random bytes drawn at once: each write takes 16 of them, and a draw from the system costs as much as 256. */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let taken = 0;

/** Hex digits of `bytes` random bytes, from a pool refilled from the system's generator when it runs out. */
export const randomHex: RandomHex = (bytes) => {
  if (bytes > POOL_BYTES) return randomBytes(bytes).toString('hex');
  if (taken + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES);
    taken = 0;
  }
  const hex = pool.toString('hex', taken, taken + bytes);
  taken += bytes;
  return hex;
};

/**
 * The trace id a write is recorded under and answered with (`traceparent`): the request's own when it is a W3C trace
 * id (the client sent a `traceparent`, or an `X-Trace-Id` of that form), otherwise a new one made as DataHub makes
 * them — the time in microseconds (16 hexadecimal digits), then 16 random ones — so that DataHub's clients, which
 * read the time back from a trace id, find the time of the write.
 */
export function writeTraceIdOf(requestTraceId: string, now: number, random: RandomHex = randomHex): string {
  if (isW3cTraceId(requestTraceId)) return requestTraceId;
  const micros = BigInt(Math.max(0, Math.trunc(now))) * 1000n;
  return `${micros.toString(16).padStart(16, '0').slice(-16)}${nonZero(random(8))}`;
}

/**
 * The `traceparent` header a write is answered with (W3C trace context, version 00, sampled): DataHub's emitter reads
 * the trace id from it to ask the trace API what became of the write.
 */
export function traceparentOf(traceId: string, random: RandomHex = randomHex): string {
  return `00-${traceId}-${nonZero(random(8))}-01`;
}

/** A random part of an id, never all zeros (an invalid span id, and a trace id must not be one either). */
function nonZero(hex: string): string {
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}
