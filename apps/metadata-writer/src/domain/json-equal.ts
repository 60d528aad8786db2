/**
 * Structural equality of JSON values, ignoring object key order: two aspect values are "the same value" when a client
 * would read them as the same document. Only own keys count: a key such as `__proto__` or `constructor` on one side
 * must not be matched by what the other side inherits.
 */
export function jsonEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left) && Array.isArray(right)) {
    return left.length === right.length && left.every((item, index) => jsonEqual(item, right[index]));
  }
  const leftObject = left as Record<string, unknown>;
  const rightObject = right as Record<string, unknown>;
  const leftKeys = Object.keys(leftObject).filter((key) => leftObject[key] !== undefined);
  const rightKeys = Object.keys(rightObject).filter((key) => rightObject[key] !== undefined);
  return (
    leftKeys.length === rightKeys.length &&
    leftKeys.every((key) => Object.hasOwn(rightObject, key) && jsonEqual(leftObject[key], rightObject[key]))
  );
}
