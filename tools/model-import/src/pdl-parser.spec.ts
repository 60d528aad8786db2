import { parsePdl, PdlSyntaxError } from './pdl-parser';

describe('parsePdl', () => {
  it('given a record with imports, annotations, optional fields and defaults, when parsed, then all of it is there', () => {
    const file = parsePdl(
      `namespace com.example.things

import com.example.common.Urn

/** Prose that the parser drops. */
@Aspect = { "name": "thingInfo" }
record ThingInfo includes Base {
  // a comment
  @Searchable = { "fieldType": "URN", "/*": { "x": [1, 2.5, true, null] } }
  owner: Urn
  label: optional string
  count: int = 3, tags: array[string] = [ ]
  props: map[string, Local]
}`,
      'ThingInfo.pdl',
    );
    expect(file.namespace).toBe('com.example.things');
    const record = file.declaration;
    expect(record).toMatchObject({
      kind: 'record',
      name: 'com.example.things.ThingInfo',
      annotations: { Aspect: { name: 'thingInfo' } },
      includes: [{ kind: 'reference', name: 'com.example.things.Base' }],
    });
    if (record.kind !== 'record') throw new Error('not a record');
    expect(record.fields).toEqual([
      {
        name: 'owner',
        type: { kind: 'reference', name: 'com.example.common.Urn' },
        optional: false,
        hasDefault: false,
        defaultValue: undefined,
        annotations: { Searchable: { fieldType: 'URN', '/*': { x: [1, 2.5, true, null] } } },
      },
      {
        name: 'label',
        type: { kind: 'primitive', name: 'string' },
        optional: true,
        hasDefault: false,
        defaultValue: undefined,
        annotations: {},
      },
      {
        name: 'count',
        type: { kind: 'primitive', name: 'int' },
        optional: false,
        hasDefault: true,
        defaultValue: 3,
        annotations: {},
      },
      {
        name: 'tags',
        type: { kind: 'array', items: { kind: 'primitive', name: 'string' } },
        optional: false,
        hasDefault: true,
        defaultValue: [],
        annotations: {},
      },
      {
        name: 'props',
        type: { kind: 'map', values: { kind: 'reference', name: 'com.example.things.Local' } },
        optional: false,
        hasDefault: false,
        defaultValue: undefined,
        annotations: {},
      },
    ]);
  });

  it('given dotted, escaped and valueless annotations, when parsed, then they nest and default to true', () => {
    const file = parsePdl(
      'namespace a\n@java.class = "a.Urn"\n@validate.`a.b.Validator` = { "k": 1 }\n@deprecated\ntyperef Urn = string',
      'Urn.pdl',
    );
    expect(file.declaration).toEqual({
      kind: 'typeref',
      name: 'a.Urn',
      annotations: { java: { class: 'a.Urn' }, validate: { 'a.b.Validator': { k: 1 } }, deprecated: true },
      target: { kind: 'primitive', name: 'string' },
    });
  });

  it('given inline named types, unions with aliases and enums with annotated symbols, when parsed, then each is declared', () => {
    const file = parsePdl(
      `namespace a
record Outer {
  kind: enum Kind { ONE, @deprecated TWO
    THREE }
  value: union[
    cost: double
    code: string
  ]
  inner: optional record Inner {}
  either: union[null, Inner, array[Kind]]
}`,
      'Outer.pdl',
    );
    expect(file.declarations.map((declaration) => declaration.name)).toEqual(['a.Outer', 'a.Kind', 'a.Inner']);
    expect(file.declarations[1]).toMatchObject({ kind: 'enum', symbols: ['ONE', 'TWO', 'THREE'] });
    const outer = file.declaration;
    if (outer.kind !== 'record') throw new Error('not a record');
    expect(outer.fields[1]?.type).toEqual({
      kind: 'union',
      members: [
        { alias: 'cost', type: { kind: 'primitive', name: 'double' }, annotations: {} },
        { alias: 'code', type: { kind: 'primitive', name: 'string' }, annotations: {} },
      ],
    });
    expect(outer.fields[3]?.type).toMatchObject({
      kind: 'union',
      members: [
        { type: { kind: 'primitive', name: 'null' } },
        { type: { kind: 'reference', name: 'a.Inner' } },
        { type: { kind: 'array', items: { kind: 'reference', name: 'a.Kind' } } },
      ],
    });
  });

  it('given a field named like a keyword, when parsed, then it is a field', () => {
    const file = parsePdl('namespace a\nrecord R { record: string, enum: optional int }', 'R.pdl');
    if (file.declaration.kind !== 'record') throw new Error('not a record');
    expect(file.declaration.fields.map((field) => field.name)).toEqual(['record', 'enum']);
  });

  it.each([
    ['namespace a\nrecord R { x string }', 'R.pdl:2: expected ":", found "string"'],
    ['namespace a\nrecord R {\n  x: map[int, string]\n}', 'R.pdl:3: map keys must be string'],
    ['namespace a\nrecord R {}\nrecord S {}', 'R.pdl:3: unexpected "record" after the type'],
    ['namespace a\n@A = { key: 1 }\nrecord R {}', 'R.pdl:2: expected a quoted key, found "key"'],
    ['namespace a\nrecord R { x: string = # }', 'R.pdl:2: unexpected character "#"'],
    ['namespace a', 'R.pdl:1: expected record, enum, typeref or fixed'],
  ])('given malformed PDL %j, when parsed, then the error names file, line and reason', (text, message) => {
    expect(() => parsePdl(text, 'R.pdl')).toThrow(PdlSyntaxError);
    expect(() => parsePdl(text, 'R.pdl')).toThrow(message);
  });
});
