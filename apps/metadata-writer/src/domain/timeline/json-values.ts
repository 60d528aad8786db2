import type { JsonObject } from '@strata/model';

/**
 * Reading stored aspect values defensively: a value that lacks a member, or holds one of an unexpected shape, reads as
 * absent, so a generator describes what it can rather than failing the whole timeline.
 */

/** A member that is an object, or undefined. */
export function objectAt(value: unknown, key: string): JsonObject | undefined {
  const member = isObject(value) ? value[key] : undefined;
  return isObject(member) ? member : undefined;
}

/** A member that is an array, or `[]`. */
export function arrayAt(value: unknown, key: string): unknown[] {
  const member = isObject(value) ? value[key] : undefined;
  return Array.isArray(member) ? (member as unknown[]) : [];
}

/** The object items of an array member. */
export function objectsAt(value: unknown, key: string): JsonObject[] {
  return arrayAt(value, key).filter(isObject);
}

/** The string items of an array member. */
export function stringsAt(value: unknown, key: string): string[] {
  return arrayAt(value, key).filter((item): item is string => typeof item === 'string');
}

/** A member that is a string, or undefined. */
export function stringAt(value: unknown, key: string): string | undefined {
  const member = isObject(value) ? value[key] : undefined;
  return typeof member === 'string' ? member : undefined;
}

/** A member that is a boolean, or `fallback`. */
export function booleanAt(value: unknown, key: string, fallback: boolean): boolean {
  const member = isObject(value) ? value[key] : undefined;
  return typeof member === 'boolean' ? member : fallback;
}

/** Whether the array member exists at all (as opposed to being empty). */
export function hasArray(value: unknown, key: string): boolean {
  return isObject(value) && Array.isArray(value[key]);
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The id of a URN, what follows `urn:li:<type>:` (`pii` for `urn:li:tag:pii`); the text itself when it is no URN. */
export function urnId(urn: string): string {
  const match = /^urn:li:[^:]+:(.*)$/s.exec(urn);
  return match?.[1] ?? urn;
}

/** Text order by UTF-16 code units, as Java's `String.compareTo` orders. */
export function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Java's `String.format("%s", …)` of a possibly absent value. */
export function text(value: string | undefined): string {
  return value ?? 'null';
}
