import type { JsonObject } from '@strata/model';
import type { ChangeCategory, ChangeEvent } from './change-event';
import { tagEvents, termEvents } from './entity-generators';
import type { ChangeEventGenerator } from './generator';
import { booleanAt, compareText, objectsAt, stringAt, stringsAt, text } from './json-values';

/**
 * Generators of a dataset's schema: `schemaMetadata` (what ingestion reads from the platform: fields added, removed,
 * renamed or retyped, primary keys, and the fields' descriptions and tags) and `editableSchemaMetadata` (what users add
 * to fields: descriptions, tags, terms). Texts, parameters and semantic changes are DataHub's.
 */

const BACKWARDS_INCOMPATIBLE = 'A backwards incompatible change due to';
const COMPATIBLE = 'A forwards & backwards compatible change due to ';

/** `urn:li:schemaField:(<dataset URN>,<field path>)`. */
export function schemaFieldUrn(datasetUrn: string, fieldPath: string): string {
  return `urn:li:schemaField:(${datasetUrn},${fieldPath})`;
}

/**
 * A field path without its version-2 annotations (`[version=2.0].[type=struct].a` reads `a`): the tokens between dots
 * that neither start with `[` nor end with `]`. Trailing empty tokens go, as Java's split drops them.
 */
export function fieldPathV1(fieldPath: string): string {
  const tokens = fieldPath.split('.');
  while (tokens.length > 0 && tokens[tokens.length - 1] === '') tokens.pop();
  return tokens.filter((token) => !(token.startsWith('[') || token.endsWith(']'))).join('.');
}

interface SchemaField {
  readonly fieldPath: string;
  readonly nativeDataType: string;
  readonly description: string | undefined;
  readonly nullable: boolean;
  readonly value: JsonObject;
}

function fieldsOf(schema: JsonObject | undefined): SchemaField[] {
  return objectsAt(schema, 'fields')
    .filter((field) => stringAt(field, 'fieldPath') !== undefined)
    .map((field) => ({
      fieldPath: stringAt(field, 'fieldPath') ?? '',
      nativeDataType: text(stringAt(field, 'nativeDataType')),
      description: stringAt(field, 'description'),
      nullable: booleanAt(field, 'nullable', false),
      value: field,
    }))
    .sort((left, right) => compareText(left.fieldPath, right.fieldPath));
}

/** A field's own change event (added, removed, renamed, retyped): DataHub's schema-field parameters. */
function fieldEvent(
  datasetUrn: string,
  field: SchemaField,
  operation: 'ADD' | 'REMOVE' | 'MODIFY',
  semVerChange: 'MINOR' | 'MAJOR',
  description: string,
): ChangeEvent {
  const fieldUrn = schemaFieldUrn(datasetUrn, fieldPathV1(field.fieldPath));
  return {
    entityUrn: datasetUrn,
    category: 'TECHNICAL_SCHEMA',
    operation,
    modifier: fieldUrn,
    parameters: { fieldPath: field.fieldPath, fieldUrn, nullable: field.nullable, modificationCategory: 'OTHER' },
    semVerChange,
    description,
  };
}

/**
 * The changes of a field's own properties in one category: its description (DOCUMENTATION: added or removed MINOR,
 * changed PATCH), its tags (TAG) — rebound to the field, whose URN becomes the events' entity and whose path and
 * dataset become parameters.
 */
function fieldPropertyEvents(
  category: ChangeCategory,
  before: SchemaField | undefined,
  after: SchemaField | undefined,
  datasetUrn: string,
): ChangeEvent[] {
  const field = after ?? before;
  if (field === undefined) return [];
  const fieldUrn = schemaFieldUrn(datasetUrn, fieldPathV1(field.fieldPath));
  if (category === 'DOCUMENTATION') {
    const [was, is] = [before?.description, after?.description];
    const event = (operation: 'ADD' | 'REMOVE' | 'MODIFY', description: string): ChangeEvent[] => [
      {
        entityUrn: fieldUrn,
        category: 'DOCUMENTATION',
        operation,
        semVerChange: operation === 'MODIFY' ? 'PATCH' : 'MINOR',
        description,
      },
    ];
    if (was === undefined && is !== undefined) {
      return event('ADD', `The description '${is}' for the field '${field.fieldPath}' has been added.`);
    }
    if (was !== undefined && is === undefined) {
      return event(
        'REMOVE',
        `The description '${was}' for the field '${(before ?? field).fieldPath}' has been removed.`,
      );
    }
    if (was !== undefined && was !== is) {
      return event(
        'MODIFY',
        `The description for the field '${(before ?? field).fieldPath}' has been changed from '${was}' to '${text(is)}'.`,
      );
    }
    return [];
  }
  if (category === 'TAG') {
    return rebind(
      tagEvents(before?.value['globalTags'], after?.value['globalTags'], fieldUrn),
      field.fieldPath,
      datasetUrn,
    );
  }
  if (category === 'GLOSSARY_TERM') {
    return rebind(
      termEvents(before?.value['glossaryTerms'], after?.value['glossaryTerms'], fieldUrn),
      field.fieldPath,
      datasetUrn,
    );
  }
  return [];
}

/** A tag or term event of a field, with the field's path and its parent's URN among its parameters. */
function rebind(events: readonly ChangeEvent[], fieldPath: string, parentUrn: string): ChangeEvent[] {
  return events.map((event) => ({ ...event, parameters: { fieldPath, parentUrn, ...event.parameters } }));
}

/** Two fields are one renamed when type, parent path and (non-blank) description agree. */
function isRenamed(field: SchemaField, candidate: SchemaField): boolean {
  return (
    field.nativeDataType === candidate.nativeDataType &&
    parentsMatch(field.fieldPath, candidate.fieldPath) &&
    field.description !== undefined &&
    field.description.trim() !== '' &&
    field.description === candidate.description
  );
}

function parentsMatch(left: string, right: string): boolean {
  const [leftDot, rightDot] = [left.lastIndexOf('.'), right.lastIndexOf('.')];
  if (leftDot > 0 && rightDot > 0) {
    const parent = left.slice(0, leftDot);
    return parent.trim() !== '' && parent === right.slice(0, rightDot);
  }
  return leftDot < 0 && rightDot < 0;
}

/**
 * The changes between two schemas in one category. Fields are compared by path, both sides sorted by path. In
 * TECHNICAL_SCHEMA: a field whose native type changed is a MAJOR MODIFY; a field that went is a MAJOR REMOVE, unless a
 * field of the other side further on has its type, parent and description (then it was renamed: a MINOR MODIFY); a new
 * field is a MINOR ADD; each primary key removed or added is a MAJOR MODIFY. In every category, the fields' own
 * properties (see {@link fieldPropertyEvents}) are compared between a field and its counterpart.
 */
function schemaEvents(
  category: ChangeCategory,
  previous: JsonObject | undefined,
  current: JsonObject,
  datasetUrn: string,
): ChangeEvent[] {
  const base = fieldsOf(previous);
  const target = fieldsOf(current);
  const technical = category === 'TECHNICAL_SCHEMA';
  const events: ChangeEvent[] = [];
  const renamedBase = new Set<number>();
  const renamedTarget = new Set<number>();
  const removal = (field: SchemaField) => {
    if (technical) {
      events.push(
        fieldEvent(
          datasetUrn,
          field,
          'REMOVE',
          'MAJOR',
          `${BACKWARDS_INCOMPATIBLE} removal of field: '${fieldPathV1(field.fieldPath)}'.`,
        ),
      );
    }
    events.push(...fieldPropertyEvents(category, field, undefined, datasetUrn));
  };
  const addition = (field: SchemaField) => {
    if (technical) {
      events.push(
        fieldEvent(
          datasetUrn,
          field,
          'ADD',
          'MINOR',
          `${COMPATIBLE}the newly added field '${fieldPathV1(field.fieldPath)}'.`,
        ),
      );
    }
    events.push(...fieldPropertyEvents(category, undefined, field, datasetUrn));
  };
  const rename = (from: SchemaField, to: SchemaField) => {
    if (technical) {
      events.push(
        fieldEvent(
          datasetUrn,
          from,
          'MODIFY',
          'MINOR',
          `${COMPATIBLE}renaming of the field '${fieldPathV1(from.fieldPath)} to ${fieldPathV1(to.fieldPath)}'.`,
        ),
      );
    }
    events.push(...fieldPropertyEvents(category, from, to, datasetUrn));
  };
  let i = 0;
  let j = 0;
  while (i < base.length && j < target.length) {
    const before = base[i] as SchemaField;
    const after = target[j] as SchemaField;
    const comparison = compareText(before.fieldPath, after.fieldPath);
    if (renamedBase.has(i)) {
      i++;
    } else if (renamedTarget.has(j)) {
      j++;
    } else if (comparison === 0) {
      if (technical && before.nativeDataType !== after.nativeDataType) {
        events.push(
          fieldEvent(
            datasetUrn,
            before,
            'MODIFY',
            'MAJOR',
            `${BACKWARDS_INCOMPATIBLE} native datatype of the field '${fieldPathV1(after.fieldPath)}' changed from '${before.nativeDataType}' to '${after.nativeDataType}'.`,
          ),
        );
      }
      events.push(...fieldPropertyEvents(category, before, after, datasetUrn));
      i++;
      j++;
    } else if (comparison < 0) {
      const partner = findRename(before, target, j, renamedTarget);
      if (partner === undefined) {
        removal(before);
      } else {
        rename(before, target[partner] as SchemaField);
        renamedTarget.add(partner);
      }
      i++;
    } else {
      const partner = findRename(after, base, i, renamedBase);
      if (partner === undefined) {
        addition(after);
      } else {
        rename(base[partner] as SchemaField, after);
        renamedBase.add(partner);
      }
      j++;
    }
  }
  for (; i < base.length; i++) if (!renamedBase.has(i)) removal(base[i] as SchemaField);
  for (; j < target.length; j++) if (!renamedTarget.has(j)) addition(target[j] as SchemaField);
  if (technical) events.push(...primaryKeyEvents(previous, current, datasetUrn));
  return events;
}

function findRename(
  field: SchemaField,
  others: readonly SchemaField[],
  from: number,
  taken: ReadonlySet<number>,
): number | undefined {
  for (let index = from; index < others.length; index++) {
    if (!taken.has(index) && isRenamed(field, others[index] as SchemaField)) return index;
  }
  return undefined;
}

/** Primary keys removed, then added, each in path order: MAJOR MODIFYs naming the key field. */
function primaryKeyEvents(previous: JsonObject | undefined, current: JsonObject, datasetUrn: string): ChangeEvent[] {
  const before = new Set(stringsAt(previous, 'primaryKeys'));
  const after = new Set(stringsAt(current, 'primaryKeys'));
  const event = (key: string, change: string): ChangeEvent => ({
    entityUrn: datasetUrn,
    category: 'TECHNICAL_SCHEMA',
    operation: 'MODIFY',
    modifier: schemaFieldUrn(datasetUrn, key),
    semVerChange: 'MAJOR',
    description: `${BACKWARDS_INCOMPATIBLE} ${change} of the primary key field '${key}'`,
  });
  return [
    ...[...before]
      .filter((key) => !after.has(key))
      .sort(compareText)
      .map((key) => event(key, 'removal')),
    ...[...after]
      .filter((key) => !before.has(key))
      .sort(compareText)
      .map((key) => event(key, 'addition')),
  ];
}

/** `schemaMetadata`: TECHNICAL_SCHEMA, and the fields' descriptions (DOCUMENTATION) and tags (TAG). */
export const schemaMetadataGenerator: ChangeEventGenerator = (categories, previous, current, context) =>
  categories.flatMap((category) =>
    category === 'TECHNICAL_SCHEMA' || category === 'DOCUMENTATION' || category === 'TAG'
      ? schemaEvents(category, previous, current, context.entityUrn)
      : [],
  );

interface EditableField {
  readonly fieldPath: string;
  readonly value: JsonObject;
}

/**
 * `editableSchemaMetadata`: per field (by path), the documentation users wrote (DOCUMENTATION: added or removed MINOR,
 * updated PATCH, the modifier being the field path), and the tags (TAG) and terms (GLOSSARY_TERM) they applied, bound
 * to the field. The field's URN carries its path as written.
 */
export const editableSchemaMetadataGenerator: ChangeEventGenerator = (categories, previous, current, context) => {
  const fields = (value: JsonObject | undefined): EditableField[] =>
    objectsAt(value, 'editableSchemaFieldInfo')
      .filter((field) => stringAt(field, 'fieldPath') !== undefined)
      .map((field) => ({ fieldPath: stringAt(field, 'fieldPath') ?? '', value: field }));
  const before = fields(previous).sort((left, right) => compareText(left.fieldPath, right.fieldPath));
  const after = fields(current).sort((left, right) => compareText(left.fieldPath, right.fieldPath));
  return categories.flatMap((category) => {
    if (category !== 'DOCUMENTATION' && category !== 'TAG' && category !== 'GLOSSARY_TERM') return [];
    const events: ChangeEvent[] = [];
    const compare = (was: EditableField | undefined, is: EditableField | undefined) =>
      events.push(...editableFieldEvents(category, was, is, context.entityUrn));
    let i = 0;
    let j = 0;
    while (i < before.length && j < after.length) {
      const was = before[i] as EditableField;
      const is = after[j] as EditableField;
      const comparison = compareText(was.fieldPath, is.fieldPath);
      if (comparison === 0) {
        compare(was, is);
        i++;
        j++;
      } else if (comparison < 0) {
        compare(was, undefined);
        i++;
      } else {
        compare(undefined, is);
        j++;
      }
    }
    for (; i < before.length; i++) compare(before[i], undefined);
    for (; j < after.length; j++) compare(undefined, after[j]);
    return events;
  });
};

function editableFieldEvents(
  category: ChangeCategory,
  was: EditableField | undefined,
  is: EditableField | undefined,
  datasetUrn: string,
): ChangeEvent[] {
  const field = was ?? is;
  if (field === undefined) return [];
  const fieldUrn = schemaFieldUrn(datasetUrn, field.fieldPath);
  if (category === 'DOCUMENTATION') {
    const [before, after] = [stringAt(was?.value, 'description'), stringAt(is?.value, 'description')];
    const path = (is ?? field).fieldPath;
    const event = (operation: 'ADD' | 'REMOVE' | 'MODIFY', description: string): ChangeEvent[] => [
      {
        entityUrn: fieldUrn,
        category: 'DOCUMENTATION',
        operation,
        modifier: path,
        semVerChange: operation === 'MODIFY' ? 'PATCH' : 'MINOR',
        description,
      },
    ];
    if (before === undefined && after !== undefined) {
      return event('ADD', `Documentation for the field '${path}' of '${fieldUrn}' has been added: '${after}'`);
    }
    if (before !== undefined && after === undefined) {
      return event('REMOVE', `Documentation for the field '${path}' of '${fieldUrn}' has been removed: '${before}'`);
    }
    if (before !== undefined && after !== undefined && before !== after) {
      return event(
        'MODIFY',
        `Documentation for the field '${path}' of '${fieldUrn}' has been updated from '${before}' to '${after}'.`,
      );
    }
    return [];
  }
  const fieldPath = (is ?? field).fieldPath;
  if (category === 'TAG') {
    return rebind(tagEvents(was?.value['globalTags'], is?.value['globalTags'], fieldUrn), fieldPath, fieldUrn);
  }
  if (category === 'GLOSSARY_TERM') {
    return rebind(termEvents(was?.value['glossaryTerms'], is?.value['glossaryTerms'], fieldUrn), fieldPath, fieldUrn);
  }
  return [];
}
