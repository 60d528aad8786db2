import { jsonEqual } from './json-equal';

describe('jsonEqual with keys that name Object.prototype members', () => {
  // Parsed from JSON text, as stored and proposed values are: "__proto__" is then an ordinary own key.
  const parse = (text: string): unknown => JSON.parse(text);

  it('given a "__proto__" key on one side only, when compared, then the values differ', () => {
    expect(jsonEqual(parse('{"__proto__": {}}'), parse('{"other": {}}'))).toBe(false);
    expect(jsonEqual(parse('{"other": {}}'), parse('{"__proto__": {}}'))).toBe(false);
    expect(jsonEqual(parse('{"__proto__": {}}'), {})).toBe(false);
  });

  it('given a "constructor" or "toString" key on one side only, when compared, then the values differ', () => {
    expect(jsonEqual(parse('{"constructor": {}}'), parse('{"other": {}}'))).toBe(false);
    expect(jsonEqual(parse('{"toString": "x"}'), parse('{"other": "x"}'))).toBe(false);
  });

  it('given the same "__proto__" and "constructor" keys on both sides, when compared, then the values are equal', () => {
    const text = '{"customProperties": {"__proto__": "x", "constructor": {"a": [1]}}}';
    expect(jsonEqual(parse(text), parse(text))).toBe(true);
    expect(jsonEqual(parse(text), parse('{"customProperties": {"__proto__": "y", "constructor": {"a": [1]}}}'))).toBe(
      false,
    );
  });
});
