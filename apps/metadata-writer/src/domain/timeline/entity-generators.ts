import type { JsonObject } from '@strata/model';
import type { ChangeEvent, ChangeOperation } from './change-event';
import { forCategory, sortedMerge, type ChangeEventGenerator } from './generator';
import { booleanAt, isObject, objectsAt, stringAt, stringsAt, text, urnId } from './json-values';

/**
 * Generators of the aspects any entity may have: tags, glossary terms, owners, links, domain, structured properties,
 * applications, status and deprecation. Texts, operations and semantic changes are DataHub's where DataHub's timeline
 * describes the aspect; see each generator for the rest.
 */

/**
 * Tags added to and removed from a `globalTags` value (or a schema field's), compared by tag URN: MINOR each. Shared
 * with the schema generators, which rebind the events to fields.
 */
export function tagEvents(before: unknown, after: unknown, entityUrn: string): ChangeEvent[] {
  const event = (tag: string, operation: ChangeOperation): ChangeEvent => ({
    entityUrn,
    category: 'TAG',
    operation,
    modifier: tag,
    parameters: { tagUrn: tag },
    semVerChange: 'MINOR',
    description:
      operation === 'ADD'
        ? `Tag '${urnId(tag)}' added to entity '${entityUrn}'.`
        : `Tag '${urnId(tag)}' removed from entity '${entityUrn}'.`,
  });
  return sortedMerge(associations(before, 'tags', 'tag'), associations(after, 'tags', 'tag'), (tag) => tag, {
    removed: (tag) => event(tag, 'REMOVE'),
    added: (tag) => event(tag, 'ADD'),
  });
}

/** Glossary terms added to and removed from a `glossaryTerms` value (or a field's), by term URN: MINOR each. */
export function termEvents(before: unknown, after: unknown, entityUrn: string): ChangeEvent[] {
  const event = (term: string, operation: ChangeOperation): ChangeEvent => ({
    entityUrn,
    category: 'GLOSSARY_TERM',
    operation,
    modifier: term,
    parameters: { termUrn: term },
    semVerChange: 'MINOR',
    description:
      operation === 'ADD'
        ? `Term '${urnId(term)}' added to entity '${entityUrn}'.`
        : `Term '${urnId(term)}' removed from entity '${entityUrn}'.`,
  });
  return sortedMerge(associations(before, 'terms', 'urn'), associations(after, 'terms', 'urn'), (term) => term, {
    removed: (term) => event(term, 'REMOVE'),
    added: (term) => event(term, 'ADD'),
  });
}

/** The URNs an association array holds (`tags[].tag`, `terms[].urn`). */
function associations(value: unknown, array: string, member: string): string[] {
  return objectsAt(value, array).flatMap((item) => {
    const urn = stringAt(item, member);
    return urn === undefined ? [] : [urn];
  });
}

export const globalTagsGenerator: ChangeEventGenerator = forCategory('TAG', (previous, current, context) =>
  tagEvents(previous, current, context.entityUrn),
);

export const glossaryTermsGenerator: ChangeEventGenerator = forCategory('GLOSSARY_TERM', (previous, current, context) =>
  termEvents(previous, current, context.entityUrn),
);

/**
 * Owners by owner URN: added or removed (MINOR), or their ownership type changed (PATCH, the modifier being the new
 * type). Parameters name the owner, its type and, when set, its custom ownership type URN.
 */
export const ownershipGenerator: ChangeEventGenerator = forCategory('OWNERSHIP', (previous, current, context) => {
  const entityUrn = context.entityUrn;
  const owners = (value: JsonObject | undefined) =>
    objectsAt(value, 'owners').filter((owner) => stringAt(owner, 'owner') !== undefined);
  const ownerOf = (owner: JsonObject) => stringAt(owner, 'owner') ?? '';
  const parameters = (owner: JsonObject) => ({
    ownerUrn: ownerOf(owner),
    ownerType: text(stringAt(owner, 'type')),
    ...(stringAt(owner, 'typeUrn') === undefined ? {} : { ownerTypeUrn: stringAt(owner, 'typeUrn') }),
  });
  const event = (owner: JsonObject, operation: 'ADD' | 'REMOVE'): ChangeEvent => ({
    entityUrn,
    category: 'OWNERSHIP',
    operation,
    modifier: ownerOf(owner),
    parameters: parameters(owner),
    semVerChange: 'MINOR',
    description: `'${urnId(ownerOf(owner))}' ${operation === 'ADD' ? 'added' : 'removed'} as a \`${text(stringAt(owner, 'type'))}\` of '${entityUrn}'.`,
  });
  return sortedMerge(owners(previous), owners(current), ownerOf, {
    removed: (owner) => event(owner, 'REMOVE'),
    added: (owner) => event(owner, 'ADD'),
    both: (before, after) =>
      stringAt(before, 'type') === stringAt(after, 'type')
        ? undefined
        : {
            entityUrn,
            category: 'OWNERSHIP',
            operation: 'MODIFY',
            modifier: text(stringAt(after, 'type')),
            parameters: parameters(after),
            semVerChange: 'PATCH',
            description: `'${urnId(ownerOf(before))}''s ownership type changed from '${text(stringAt(before, 'type'))}' to '${text(stringAt(after, 'type'))}' for '${entityUrn}'.`,
          },
  });
});

/** Links (`institutionalMemory`) by URL: added or removed (MINOR), or their description changed (PATCH). */
export const institutionalMemoryGenerator: ChangeEventGenerator = forCategory(
  'DOCUMENTATION',
  (previous, current, context) => {
    const entityUrn = context.entityUrn;
    const links = (value: JsonObject | undefined) =>
      objectsAt(value, 'elements').filter((link) => stringAt(link, 'url') !== undefined);
    const urlOf = (link: JsonObject) => stringAt(link, 'url') ?? '';
    const event = (link: JsonObject, operation: 'ADD' | 'REMOVE'): ChangeEvent => ({
      entityUrn,
      category: 'DOCUMENTATION',
      operation,
      modifier: urlOf(link),
      semVerChange: 'MINOR',
      description: `Institutional Memory '${urlOf(link)}' with documentation of '${entityUrn}' has been ${operation === 'ADD' ? 'added' : 'removed'}: '${text(stringAt(link, 'description'))}'`,
    });
    return sortedMerge(links(previous), links(current), urlOf, {
      removed: (link) => event(link, 'REMOVE'),
      added: (link) => event(link, 'ADD'),
      both: (before, after) =>
        stringAt(before, 'description') === stringAt(after, 'description')
          ? undefined
          : {
              entityUrn,
              category: 'DOCUMENTATION',
              operation: 'MODIFY',
              modifier: urlOf(before),
              semVerChange: 'PATCH',
              description: `Documentation of Institutional Memory '${urlOf(before)}' of  '${entityUrn}' has been changed from '${text(stringAt(before, 'description'))}' to '${text(stringAt(after, 'description'))}'.`,
            },
    });
  },
);

/**
 * The entity's domain, the first of `domains` (DataHub's contract is one domain): set (ADD), unset (REMOVE), or
 * changed (REMOVE of the old, then ADD of the new). The events' shape is DataHub's; DataHub gives them neither a
 * semantic change nor a text, so Strata rates them MINOR, as tags and terms are, and describes them alike.
 */
export const domainsGenerator: ChangeEventGenerator = forCategory('DOMAIN', (previous, current, context) => {
  const before = stringsAt(previous, 'domains')[0];
  const after = stringsAt(current, 'domains')[0];
  const event = (domain: string, operation: 'ADD' | 'REMOVE'): ChangeEvent => ({
    entityUrn: context.entityUrn,
    category: 'DOMAIN',
    operation,
    modifier: domain,
    parameters: { domainUrn: domain },
    semVerChange: 'MINOR',
    description:
      operation === 'ADD'
        ? `Domain '${urnId(domain)}' added to entity '${context.entityUrn}'.`
        : `Domain '${urnId(domain)}' removed from entity '${context.entityUrn}'.`,
  });
  if (before === after) return [];
  return [
    ...(before === undefined ? [] : [event(before, 'REMOVE')]),
    ...(after === undefined ? [] : [event(after, 'ADD')]),
  ];
});

/**
 * Structured property assignments by property URN: added, removed, or their values changed (MODIFY, described with
 * the text of an addition, as DataHub does): MINOR each. Parameters name the property and its values, the values as
 * JSON text.
 */
export const structuredPropertiesGenerator: ChangeEventGenerator = forCategory(
  'STRUCTURED_PROPERTY',
  (previous, current, context) => {
    const entityUrn = context.entityUrn;
    const assignments = (value: JsonObject | undefined) =>
      objectsAt(value, 'properties').filter((assignment) => stringAt(assignment, 'propertyUrn') !== undefined);
    const propertyOf = (assignment: JsonObject) => stringAt(assignment, 'propertyUrn') ?? '';
    const event = (assignment: JsonObject, operation: 'ADD' | 'REMOVE' | 'MODIFY'): ChangeEvent => ({
      entityUrn,
      category: 'STRUCTURED_PROPERTY',
      operation,
      modifier: propertyOf(assignment),
      parameters: { propertyUrn: propertyOf(assignment), propertyValues: propertyValuesText(assignment) },
      semVerChange: 'MINOR',
      description:
        operation === 'REMOVE'
          ? `Structured property '${urnId(propertyOf(assignment))}' removed from entity '${entityUrn}'.`
          : `Structured property '${urnId(propertyOf(assignment))}' added to entity '${entityUrn}'.`,
    });
    return sortedMerge(assignments(previous), assignments(current), propertyOf, {
      removed: (assignment) => event(assignment, 'REMOVE'),
      added: (assignment) => event(assignment, 'ADD'),
      both: (before, after) =>
        JSON.stringify(valuesOf(before)) === JSON.stringify(valuesOf(after)) ? undefined : event(after, 'MODIFY'),
    });
  },
);

/** An assignment's values, unwrapped from their union form (`{"string": "a"}`, `{"double": 1}`). */
function valuesOf(assignment: JsonObject): (string | number | null)[] {
  const values = Array.isArray(assignment['values']) ? (assignment['values'] as unknown[]) : [];
  return values.map((value) => {
    const unwrapped = isObject(value) ? (value['string'] ?? value['double'] ?? null) : value;
    return typeof unwrapped === 'string' || typeof unwrapped === 'number' ? unwrapped : null;
  });
}

/** The values as a JSON array text, numbers written as Java writes a double (`1.0`, `2.5E-4`). */
function propertyValuesText(assignment: JsonObject): string {
  const items = valuesOf(assignment).map((value) =>
    typeof value === 'number' ? javaDouble(value) : JSON.stringify(value),
  );
  return `[${items.join(',')}]`;
}

function javaDouble(value: number): string {
  if (!Number.isFinite(value)) return JSON.stringify(String(value));
  const magnitude = Math.abs(value);
  if (value === 0 || (magnitude >= 1e-3 && magnitude < 1e7)) {
    return Number.isInteger(value) ? `${value}.0` : String(value);
  }
  const [mantissa = '0', exponent = '0'] = value.toExponential().split('e');
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${exponent.replace('+', '')}`;
}

/** Applications the entity belongs to, by URN: added or removed, MINOR each. */
export const applicationsGenerator: ChangeEventGenerator = forCategory('APPLICATION', (previous, current, context) => {
  const event = (application: string, operation: 'ADD' | 'REMOVE'): ChangeEvent => ({
    entityUrn: context.entityUrn,
    category: 'APPLICATION',
    operation,
    modifier: application,
    semVerChange: 'MINOR',
    description:
      operation === 'ADD'
        ? `Application '${urnId(application)}' added to entity '${context.entityUrn}'.`
        : `Application '${urnId(application)}' removed from entity '${context.entityUrn}'.`,
  });
  return sortedMerge(stringsAt(previous, 'applications'), stringsAt(current, 'applications'), (urn) => urn, {
    removed: (urn) => event(urn, 'REMOVE'),
    added: (urn) => event(urn, 'ADD'),
  });
});

/**
 * Soft deletion (`status.removed` turned true: SOFT_DELETE) and reinstatement (turned false: REINSTATE), in the LIFECYCLE
 * category. Operations and category are those of DataHub's status generator, which feeds its change events but not its
 * timeline; Strata's timeline adds them (MINOR, with a text of its own), and only when `removed` actually changed.
 */
export const statusGenerator: ChangeEventGenerator = forCategory('LIFECYCLE', (previous, current, context) => {
  const before = booleanAt(previous, 'removed', false);
  const after = booleanAt(current, 'removed', false);
  if (before === after) return [];
  return [
    {
      entityUrn: context.entityUrn,
      category: 'LIFECYCLE',
      operation: after ? 'SOFT_DELETE' : 'REINSTATE',
      semVerChange: 'MINOR',
      description: after
        ? `Entity '${context.entityUrn}' has been soft-deleted.`
        : `Entity '${context.entityUrn}' has been reinstated.`,
    },
  ];
});

/**
 * Deprecation turned on or off: a MODIFY of the DEPRECATION category whose `status` parameter is `DEPRECATED` or
 * `ACTIVE` (DataHub's deprecation generator, which feeds its change events but not its timeline; Strata's timeline
 * adds them, MINOR, with a text of its own).
 */
export const deprecationGenerator: ChangeEventGenerator = forCategory('DEPRECATION', (previous, current, context) => {
  const before = booleanAt(previous, 'deprecated', false);
  const after = booleanAt(current, 'deprecated', false);
  if (before === after) return [];
  return [
    {
      entityUrn: context.entityUrn,
      category: 'DEPRECATION',
      operation: 'MODIFY',
      parameters: { status: after ? 'DEPRECATED' : 'ACTIVE' },
      semVerChange: 'MINOR',
      description: after
        ? `Entity '${context.entityUrn}' has been deprecated${stringAt(current, 'note') ? `: '${stringAt(current, 'note')}'` : ''}.`
        : `Entity '${context.entityUrn}' is no longer deprecated.`,
    },
  ];
});
