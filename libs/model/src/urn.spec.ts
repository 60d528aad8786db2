import { BadRequestError, ValidationError } from './errors';
import {
  InvalidUrnError,
  Urn,
  decodeUrnPathSegment,
  encodeUrnPathSegment,
  formatUrn,
  parseUrn,
  urlEncodedLength,
  urnLengthProblem,
} from './urn';

const DATASET = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.table,PROD)';
const SCHEMA_FIELD = 'urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD),col)';

function parseError(text: string): InvalidUrnError {
  try {
    parseUrn(text);
  } catch (error) {
    if (error instanceof InvalidUrnError) return error;
    throw error;
  }
  throw new Error(`expected ${text} to be rejected`);
}

describe('parseUrn', () => {
  it('given text with an unpaired surrogate, when parsed, then it is refused: it has no UTF-8 form for a URL', () => {
    expect(parseError('urn:li:corpuser:a\uD800b').message).toMatch(/unpaired surrogate/);
    expect(parseUrn('urn:li:corpuser:a\uD83D\uDE00b').id).toBe('a\uD83D\uDE00b');
  });

  it('given a single-part URN, when parsed, then the id is the one part', () => {
    const urn = parseUrn('urn:li:corpuser:jdoe');
    expect(urn).toBeInstanceOf(Urn);
    expect(urn.entityType).toBe('corpuser');
    expect(urn.id).toBe('jdoe');
    expect(urn.parts).toEqual(['jdoe']);
  });

  it('given a tuple id with a nested URN, when parsed, then the parts split at the top-level commas', () => {
    const urn = parseUrn(DATASET);
    expect(urn.entityType).toBe('dataset');
    expect(urn.id).toBe('(urn:li:dataPlatform:hive,db.table,PROD)');
    expect(urn.parts).toEqual(['urn:li:dataPlatform:hive', 'db.table', 'PROD']);
  });

  it('given a nested URN with its own parentheses and commas, when parsed, then it stays one part', () => {
    const urn = parseUrn(SCHEMA_FIELD);
    expect(urn.entityType).toBe('schemaField');
    expect(urn.parts).toEqual(['urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)', 'col']);
    expect(parseUrn(urn.parts[0]!).parts).toEqual(['urn:li:dataPlatform:hive', 't', 'PROD']);
  });

  it('given ids with colons, spaces and balanced parentheses, when parsed, then they are kept verbatim', () => {
    expect(parseUrn('urn:li:tag:Legacy Tag').parts).toEqual(['Legacy Tag']);
    expect(parseUrn('urn:li:corpuser:a:b').id).toBe('a:b');
    expect(parseUrn('urn:li:tag:name (old)').parts).toEqual(['name (old)']);
    expect(parseUrn('urn:li:chart:(looker,(a,b))').parts).toEqual(['looker', '(a,b)']);
  });

  it.each([
    DATASET,
    SCHEMA_FIELD,
    'urn:li:corpuser:jdoe',
    'urn:li:chart:(looker,baz1)',
    'urn:li:glossaryTerm:Classification.Sensitive',
  ])('given %s, when parsed and printed, then the text round-trips', (text) => {
    const urn = parseUrn(text);
    expect(urn.toString()).toBe(text);
    expect(JSON.stringify({ urn })).toBe(JSON.stringify({ urn: text }));
    expect(formatUrn(urn.entityType, urn.parts)).toBe(text);
  });

  it.each([
    ['urn:li:dataset:(urn:li:dataPlatform:hive,db.table,PROD', 'unbalanced parentheses: missing ")"'],
    [
      'urn:li:dataset:(urn:li:dataPlatform:hive,db.table),PROD)',
      'unbalanced parentheses: unexpected ")" at position 41 of the id',
    ],
    ['urn:li:schemaField:(urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD,col)', 'unbalanced parentheses: missing ")"'],
    ['urn:li:tag:a)b', 'unbalanced parentheses: unexpected ")" at position 2 of the id'],
    ['urn:li:chart:(looker,a)b', 'unexpected text after the closing ")" of the tuple'],
  ])('given unbalanced parentheses in %s, when parsed, then it is rejected', (text, reason) => {
    expect(parseError(text).message).toBe(`Invalid URN "${text}": ${reason}`);
  });

  it.each([
    ['urn:li:chart:(looker,,baz)', 'tuple part 2 of 3 is empty'],
    ['urn:li:chart:(,baz)', 'tuple part 1 of 2 is empty'],
    ['urn:li:chart:(looker,)', 'tuple part 2 of 2 is empty'],
    ['urn:li:chart:()', 'tuple part 1 of 1 is empty'],
    ['urn:li:dataset:', 'the entity id is empty'],
  ])('given an empty part in %s, when parsed, then it is rejected', (text, reason) => {
    expect(parseError(text).message).toBe(`Invalid URN "${text}": ${reason}`);
  });

  it.each([
    ['dataset', 'must start with "urn:li:"'],
    ['urn:foo:dataset:x', 'must start with "urn:li:"'],
    ['urn:li:dataset', 'missing the entity id after the entity type'],
    ['urn:li::x', 'the entity type is empty'],
    ['urn:li:data set:x', 'the entity type "data set" may contain only letters, digits and "_"'],
  ])('given the malformed %s, when parsed, then the message names the reason', (text, reason) => {
    const error = parseError(text);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.message).toBe(`Invalid URN "${text}": ${reason}`);
    expect(error.urn).toBe(text);
  });

  it('given a non-string, when parsed, then it is an InvalidUrnError, not a TypeError', () => {
    expect(() => parseUrn(42 as unknown as string)).toThrow(InvalidUrnError);
  });
});

describe('Urn', () => {
  it('given equal and different URNs, when compared, then only the same text is equal', () => {
    const urn = parseUrn(DATASET);
    expect(urn.equals(parseUrn(DATASET))).toBe(true);
    expect(urn.equals(DATASET)).toBe(true);
    expect(urn.equals('urn:li:dataset:(urn:li:dataPlatform:hive,db.table,DEV)')).toBe(false);
    expect(parseUrn('urn:li:tag:A').equals('urn:li:tag:a')).toBe(false);
  });

  it('given a parsed URN, when one tries to change it, then it is frozen', () => {
    const urn = parseUrn(DATASET);
    expect(Object.isFrozen(urn)).toBe(true);
    expect(Object.isFrozen(urn.parts)).toBe(true);
  });
});

describe('formatUrn', () => {
  it('given one part, when formatted, then the id is the part itself', () => {
    expect(formatUrn('corpuser', ['jdoe'])).toBe('urn:li:corpuser:jdoe');
  });

  it('given several parts including a nested URN, when formatted, then they form a tuple', () => {
    expect(formatUrn('schemaField', ['urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)', 'col'])).toBe(SCHEMA_FIELD);
  });

  it('given a single part that starts with "(", when formatted, then it is wrapped so it reads back as one part', () => {
    const text = formatUrn('tag', ['(x)']);
    expect(parseUrn(text).parts).toEqual(['(x)']);
  });

  it('given parts that cannot be written, when formatted, then InvalidUrnError', () => {
    expect(() => formatUrn('chart', ['looker', ''])).toThrow(InvalidUrnError);
    expect(() => formatUrn('chart', ['a,b', 'c'])).toThrow(InvalidUrnError);
    expect(() => formatUrn('chart', ['a(', 'c'])).toThrow(InvalidUrnError);
    expect(() => formatUrn('chart', [])).toThrow(InvalidUrnError);
  });
});

describe('URN path segments', () => {
  it('given a raw URN in a path, when decoded, then it is unchanged', () => {
    expect(decodeUrnPathSegment(DATASET)).toBe(DATASET);
  });

  it('given a percent-encoded URN, when decoded, then it is the URN text', () => {
    expect(decodeUrnPathSegment('urn%3Ali%3Adataset%3A%28urn%3Ali%3AdataPlatform%3Ahive%2Cdb.table%2CPROD%29')).toBe(
      DATASET,
    );
    expect(decodeUrnPathSegment('urn:li:dataset:(urn:li:dataPlatform:hive,db.table%2CPROD)')).toBe(DATASET);
  });

  it('given an encoded percent sign, when decoded, then it is decoded exactly once', () => {
    expect(decodeUrnPathSegment('urn:li:tag:100%2525')).toBe('urn:li:tag:100%25');
  });

  it.each(['urn:li:tag:%zz', 'urn:li:tag:50%', 'urn:li:tag:%E0%A4%A'])(
    'given the malformed escape in %s, when decoded, then BadRequestError',
    (raw) => {
      expect(() => decodeUrnPathSegment(raw)).toThrow(BadRequestError);
    },
  );

  it('given a URN, when encoded, then every reserved character is escaped and it decodes back', () => {
    const encoded = encodeUrnPathSegment(SCHEMA_FIELD);
    expect(encoded).toMatch(/^[A-Za-z0-9%._~-]+$/);
    expect(encoded).toContain('%28');
    expect(encoded).toContain('%2C');
    expect(decodeUrnPathSegment(encoded)).toBe(SCHEMA_FIELD);
    expect(encodeUrnPathSegment('urn:li:tag:a b/c')).toBe('urn%3Ali%3Atag%3Aa%20b%2Fc');
  });
});

describe('urlEncodedLength', () => {
  // Java's URLEncoder.encode(text, UTF-8): letters, digits and ".-*_" stay, a space is "+", all else %XX per byte.
  it.each([
    ['', 0],
    ['abcXYZ019.-*_', 13],
    [' ', 1],
    ['a b', 3],
    [':', 3],
    ['(,)', 9],
    ['~', 3],
    ['%', 3],
    ['é', 6],
    ['€', 9],
    ['😀', 12],
    ['urn:li:corpuser:jdoe', 26],
    [DATASET, 75],
  ])('given %j, when measured, then its URL-encoded length is %d', (text, length) => {
    expect(urlEncodedLength(text)).toBe(length);
  });

  it('given a lone surrogate, when measured, then it counts as the "?" Java encodes it to', () => {
    expect(urlEncodedLength('\uD83D')).toBe(3);
    expect(urlEncodedLength('a\uDE00b')).toBe(5);
  });
});

describe('urnLengthProblem', () => {
  it('given URNs whose encoded length is 512 or less, when checked, then there is no problem', () => {
    expect(urnLengthProblem(parseUrn(DATASET))).toBeUndefined();
    // 506 characters, 512 encoded: each ":" is 3.
    expect(urlEncodedLength(`urn:li:corpuser:${'a'.repeat(512 - 22)}`)).toBe(512);
    expect(urnLengthProblem(parseUrn(`urn:li:corpuser:${'a'.repeat(512 - 22)}`))).toBeUndefined();
  });

  it('given a URN over 512 characters encoded, when checked, then DataHub’s message', () => {
    expect(urnLengthProblem(parseUrn(`urn:li:corpuser:${'a'.repeat(512 - 21)}`))).toBe(
      'Error: cannot provide an URN longer than 512 bytes (when URL encoded)',
    );
    // 200 ">" are 200 characters but 600 encoded (DataHub's own example).
    expect(urnLengthProblem(parseUrn(`urn:li:corpuser:${'>'.repeat(200)}`))).toBe(
      'Error: cannot provide an URN longer than 512 bytes (when URL encoded)',
    );
    expect(urnLengthProblem(parseUrn(`urn:li:corpuser:${'é'.repeat(100)}`))).toBe(
      'Error: cannot provide an URN longer than 512 bytes (when URL encoded)',
    );
  });

  it('given a schemaField URN of any length, when checked, then it is exempt, as in DataHub', () => {
    expect(urnLengthProblem(parseUrn(`urn:li:schemaField:(${DATASET},${'c'.repeat(2000)})`))).toBeUndefined();
  });
});
