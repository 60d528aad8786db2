import type { JsonObject } from '@strata/model';
import type { ChangeCategory, ChangeEvent, ChangeOperation } from './change-event';
import { forCategory, sortedMerge, type ChangeEventGenerator, type GeneratorContext } from './generator';
import { objectAt, objectsAt, stringAt, stringsAt, text, urnId } from './json-values';

/**
 * Generators of the aspects that document an entity: the descriptions of datasets, glossary terms, domains and data
 * products, a term's relationships, a data product's assets, and a document's content, place and state. Texts and
 * semantic changes are DataHub's.
 */

/**
 * A description added, removed or changed, in DataHub's words for an entity's documentation (MINOR each, a change
 * too). `withParameter` adds the description concerned as the `description` parameter (the dataset's own properties).
 */
function descriptionEvents(
  before: string | undefined,
  after: string | undefined,
  entityUrn: string,
  withParameter = false,
): ChangeEvent[] {
  const event = (operation: ChangeOperation, description: string, parameter: string): ChangeEvent => ({
    entityUrn,
    category: 'DOCUMENTATION',
    operation,
    ...(withParameter ? { parameters: { description: parameter } } : {}),
    semVerChange: 'MINOR',
    description,
  });
  if (before === undefined && after !== undefined) {
    return [event('ADD', `Documentation for '${entityUrn}' has been added: '${after}'.`, after)];
  }
  if (before !== undefined && after === undefined) {
    return [event('REMOVE', `Documentation for '${entityUrn}' has been removed: '${before}'.`, before)];
  }
  if (before !== undefined && after !== undefined && before !== after) {
    return [event('MODIFY', `Documentation of '${entityUrn}' has been changed from '${before}' to '${after}'.`, after)];
  }
  return [];
}

/** The description of `datasetProperties` (what ingestion sets), with the description as a parameter. */
export const datasetPropertiesGenerator: ChangeEventGenerator = forCategory(
  'DOCUMENTATION',
  (previous, current, context) =>
    descriptionEvents(stringAt(previous, 'description'), stringAt(current, 'description'), context.entityUrn, true),
);

/** The description of `editableDatasetProperties` (what users edit). */
export const editableDatasetPropertiesGenerator: ChangeEventGenerator = forCategory(
  'DOCUMENTATION',
  (previous, current, context) =>
    descriptionEvents(stringAt(previous, 'description'), stringAt(current, 'description'), context.entityUrn),
);

/** A glossary term's definition (`glossaryTermInfo.definition`), described as its documentation. */
export const glossaryTermInfoGenerator: ChangeEventGenerator = forCategory(
  'DOCUMENTATION',
  (previous, current, context) =>
    descriptionEvents(stringAt(previous, 'definition'), stringAt(current, 'definition'), context.entityUrn),
);

/** A name set or changed, and a description added, removed or changed (domains and data products), MINOR each. */
function nameAndDescriptionEvents(previous: JsonObject | undefined, current: JsonObject, entityUrn: string) {
  const events: ChangeEvent[] = [];
  const event = (operation: ChangeOperation, description: string): ChangeEvent => ({
    entityUrn,
    category: 'DOCUMENTATION',
    operation,
    semVerChange: 'MINOR',
    description,
  });
  const [nameBefore, nameAfter] = [stringAt(previous, 'name'), stringAt(current, 'name')];
  if (nameBefore === undefined && nameAfter !== undefined) {
    events.push(event('ADD', `Name for '${entityUrn}' has been set: '${nameAfter}'.`));
  } else if (nameBefore !== undefined && nameAfter === undefined) {
    events.push(event('REMOVE', `Name for '${entityUrn}' has been removed: '${nameBefore}'.`));
  } else if (nameBefore !== undefined && nameAfter !== undefined && nameBefore !== nameAfter) {
    events.push(event('MODIFY', `Name of '${entityUrn}' has been changed from '${nameBefore}' to '${nameAfter}'.`));
  }
  const [before, after] = [stringAt(previous, 'description'), stringAt(current, 'description')];
  if (before === undefined && after !== undefined) {
    events.push(event('ADD', `Description for '${entityUrn}' has been added: '${after}'.`));
  } else if (before !== undefined && after === undefined) {
    events.push(event('REMOVE', `Description for '${entityUrn}' has been removed: '${before}'.`));
  } else if (before !== undefined && after !== undefined && before !== after) {
    events.push(event('MODIFY', `Description of '${entityUrn}' has been changed from '${before}' to '${after}'.`));
  }
  return events;
}

/** A domain's name and description (`domainProperties`). */
export const domainPropertiesGenerator: ChangeEventGenerator = forCategory(
  'DOCUMENTATION',
  (previous, current, context) => nameAndDescriptionEvents(previous, current, context.entityUrn),
);

/**
 * A data product's name and description (DOCUMENTATION), and the assets it holds (ASSET_MEMBERSHIP: each asset URN
 * added or removed, MINOR).
 */
export const dataProductPropertiesGenerator: ChangeEventGenerator = (categories, previous, current, context) =>
  categories.flatMap((category): ChangeEvent[] => {
    if (category === 'DOCUMENTATION') return nameAndDescriptionEvents(previous, current, context.entityUrn);
    if (category !== 'ASSET_MEMBERSHIP') return [];
    const assets = (value: JsonObject | undefined) =>
      objectsAt(value, 'assets').flatMap((asset) => {
        const urn = stringAt(asset, 'destinationUrn');
        return urn === undefined ? [] : [urn];
      });
    const event = (asset: string, operation: 'ADD' | 'REMOVE'): ChangeEvent => ({
      entityUrn: context.entityUrn,
      category: 'ASSET_MEMBERSHIP',
      operation,
      modifier: asset,
      semVerChange: 'MINOR',
      description:
        operation === 'ADD'
          ? `Asset '${asset}' added to data product '${context.entityUrn}'.`
          : `Asset '${asset}' removed from data product '${context.entityUrn}'.`,
    });
    return sortedMerge(assets(previous), assets(current), (urn) => urn, {
      removed: (urn) => event(urn, 'REMOVE'),
      added: (urn) => event(urn, 'ADD'),
    });
  });

/** A glossary term's relationships, by kind in DataHub's order, each with the name DataHub gives it. */
const RELATIONSHIPS: readonly { readonly member: string; readonly name: string }[] = [
  { member: 'isRelatedTerms', name: 'Is A' },
  { member: 'hasRelatedTerms', name: 'Has A' },
  { member: 'values', name: 'Has Value' },
  { member: 'relatedTerms', name: 'Is Related To' },
];

/** A glossary term's related terms (`glossaryRelatedTerms`), each added or removed per relationship: MINOR. */
export const glossaryRelatedTermsGenerator: ChangeEventGenerator = forCategory(
  'GLOSSARY_TERM',
  (previous, current, context) =>
    RELATIONSHIPS.flatMap(({ member, name }) => {
      const event = (term: string, operation: 'ADD' | 'REMOVE'): ChangeEvent => ({
        entityUrn: context.entityUrn,
        category: 'GLOSSARY_TERM',
        operation,
        modifier: term,
        parameters: { termUrn: term, relationshipType: name },
        semVerChange: 'MINOR',
        description:
          operation === 'ADD'
            ? `'${name}' relationship '${urnId(term)}' added to '${context.entityUrn}'.`
            : `'${name}' relationship '${urnId(term)}' removed from '${context.entityUrn}'.`,
      });
      return sortedMerge(stringsAt(previous, member), stringsAt(current, member), (urn) => urn, {
        removed: (urn) => event(urn, 'REMOVE'),
        added: (urn) => event(urn, 'ADD'),
      });
    }),
);

/**
 * A document (`documentInfo`): its creation (a LIFECYCLE CREATE, whatever category was asked, once), then changes of
 * its title and text (DOCUMENTATION), of its parent (PARENT), of its related assets and documents (RELATED_ENTITIES),
 * and of its state (LIFECYCLE). DataHub rates none of them; their audit stamp is the version's.
 */
export const documentInfoGenerator: ChangeEventGenerator = (categories, previous, current, context) => {
  const base = { entityUrn: context.entityUrn, auditStamp: context.stamp };
  if (previous === undefined) {
    return [
      {
        ...base,
        category: 'LIFECYCLE',
        operation: 'CREATE',
        description: `Document '${stringAt(current, 'title') ?? 'Untitled'}' was created`,
      },
    ];
  }
  return categories.flatMap((category): ChangeEvent[] => documentEvents(category, previous, current, base));
};

function documentEvents(
  category: ChangeCategory,
  previous: JsonObject,
  current: JsonObject,
  base: { readonly entityUrn: string; readonly auditStamp: GeneratorContext['stamp'] },
): ChangeEvent[] {
  switch (category) {
    case 'DOCUMENTATION': {
      const events: ChangeEvent[] = [];
      const [oldTitle, newTitle] = [stringAt(previous, 'title'), stringAt(current, 'title')];
      if (oldTitle !== newTitle) {
        events.push({
          ...base,
          category: 'DOCUMENTATION',
          operation: 'MODIFY',
          parameters: { oldTitle: oldTitle ?? '', newTitle: newTitle ?? '' },
          description: `Document title changed from '${text(oldTitle)}' to '${text(newTitle)}'`,
        });
      }
      const oldContent = stringAt(objectAt(previous, 'contents'), 'text');
      const newContent = stringAt(objectAt(current, 'contents'), 'text');
      if (oldContent !== newContent) {
        events.push({
          ...base,
          category: 'DOCUMENTATION',
          operation: 'MODIFY',
          parameters: { oldContent: oldContent ?? '', newContent: newContent ?? '' },
          description: 'Document text content was modified',
        });
      }
      return events;
    }
    case 'PARENT': {
      const oldParent = stringAt(objectAt(previous, 'parentDocument'), 'document');
      const newParent = stringAt(objectAt(current, 'parentDocument'), 'document');
      if (oldParent === newParent) return [];
      const [description, parameters] =
        oldParent === undefined
          ? [`Document moved to parent ${text(newParent)}`, { newParent: newParent ?? '' }]
          : newParent === undefined
            ? ['Document moved to root level (no parent)', { oldParent }]
            : [`Document moved from ${oldParent} to ${newParent}`, { oldParent, newParent }];
      return [{ ...base, category: 'PARENT', operation: 'MODIFY', parameters, description }];
    }
    case 'RELATED_ENTITIES':
      return [
        ...relatedEvents(
          related(previous, 'relatedAssets', 'asset'),
          related(current, 'relatedAssets', 'asset'),
          'asset',
          base,
        ),
        ...relatedEvents(
          related(previous, 'relatedDocuments', 'document'),
          related(current, 'relatedDocuments', 'document'),
          'document',
          base,
        ),
      ];
    case 'LIFECYCLE': {
      const oldState = stringAt(objectAt(previous, 'status'), 'state');
      const newState = stringAt(objectAt(current, 'status'), 'state');
      if (oldState === newState) return [];
      return [
        {
          ...base,
          category: 'LIFECYCLE',
          operation: 'MODIFY',
          parameters: { oldState: oldState ?? '', newState: newState ?? '' },
          description: `Document state changed from ${text(oldState)} to ${text(newState)}`,
        },
      ];
    }
    default:
      return [];
  }
}

function related(value: JsonObject, array: string, member: string): string[] {
  return objectsAt(value, array).flatMap((item) => {
    const urn = stringAt(item, member);
    return urn === undefined ? [] : [urn];
  });
}

/** Related entities added (in the new order), then removed (in the old order). */
function relatedEvents(
  before: readonly string[],
  after: readonly string[],
  kind: 'asset' | 'document',
  base: { readonly entityUrn: string; readonly auditStamp: GeneratorContext['stamp'] },
): ChangeEvent[] {
  const added = after.filter((urn) => !before.includes(urn));
  const removed = before.filter((urn) => !after.includes(urn));
  return [
    ...added.map((urn): ChangeEvent => ({
      ...base,
      category: 'RELATED_ENTITIES',
      operation: 'ADD',
      modifier: urn,
      description: `Related ${kind} ${urn} was added`,
    })),
    ...removed.map((urn): ChangeEvent => ({
      ...base,
      category: 'RELATED_ENTITIES',
      operation: 'REMOVE',
      modifier: urn,
      description: `Related ${kind} ${urn} was removed`,
    })),
  ];
}
