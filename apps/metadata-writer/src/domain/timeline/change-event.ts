import { BadRequestError } from '@strata/model';

/**
 * The vocabulary of DataHub's timeline: what a change is about (its category), what it did (its operation), how much it
 * matters to a consumer (its semantic change), and the shapes the timeline answers with. Names and JSON field names are
 * DataHub's, so `datahub timeline` reads Strata's answer as it reads DataHub's.
 */

/** DataHub's change categories, in its declaration order. */
export const CHANGE_CATEGORIES = [
  'DOCUMENTATION',
  'GLOSSARY_TERM',
  'OWNERSHIP',
  'TECHNICAL_SCHEMA',
  'TAG',
  'DOMAIN',
  'DEPRECATION',
  'LIFECYCLE',
  'RUN',
  'BUSINESS_ATTRIBUTE',
  'STRUCTURED_PROPERTY',
  'APPLICATION',
  'PARENT',
  'RELATED_ENTITIES',
  'ASSET_MEMBERSHIP',
] as const;

export type ChangeCategory = (typeof CHANGE_CATEGORIES)[number];

/** What a change did. */
export type ChangeOperation =
  'ADD' | 'MODIFY' | 'REMOVE' | 'CREATE' | 'HARD_DELETE' | 'SOFT_DELETE' | 'REINSTATE' | 'STARTED' | 'COMPLETED';

/** How much a change matters to a consumer, least first: the order versions are bumped by. */
export const SEMANTIC_CHANGE_TYPES = ['NONE', 'PATCH', 'MINOR', 'MAJOR', 'EXCEPTIONAL'] as const;

export type SemanticChangeType = (typeof SEMANTIC_CHANGE_TYPES)[number];

/** The larger of two semantic changes. */
export function maxSemanticChange(left: SemanticChangeType, right: SemanticChangeType): SemanticChangeType {
  return SEMANTIC_CHANGE_TYPES.indexOf(left) >= SEMANTIC_CHANGE_TYPES.indexOf(right) ? left : right;
}

/** Who made a change and when (an aspect version's `createdOn` and `createdBy`). */
export interface AuditStamp {
  readonly time: number;
  readonly actor: string;
}

/**
 * One semantic change to an entity (DataHub's `ChangeEvent`). Optional members are left out of the JSON when absent,
 * as DataHub leaves out its nulls.
 */
export interface ChangeEvent {
  /** The entity changed: the entity itself, or one of its schema fields (`urn:li:schemaField:(…)`). */
  readonly entityUrn: string;
  readonly category: ChangeCategory;
  readonly operation: ChangeOperation;
  /** What was applied or removed: a tag's URN, an owner's, a field's… */
  readonly modifier?: string;
  /** Details fixed by the category and operation (`tagUrn`, `fieldPath`, `ownerType`…). */
  readonly parameters?: Readonly<Record<string, unknown>>;
  readonly auditStamp?: AuditStamp;
  readonly semVerChange?: SemanticChangeType;
  readonly description?: string;
}

/** One RFC 6902 operation of a raw diff. */
export interface JsonPatchOperation {
  readonly op: 'add' | 'remove' | 'replace';
  readonly path: string;
  readonly value?: unknown;
}

/** The changes committed at one instant (DataHub's `ChangeTransaction`), as the timeline answers them. */
export interface ChangeTransaction {
  readonly timestamp: number;
  readonly actor: string;
  /** `<major>.<minor>.<patch>-computed`. */
  readonly semVer: string;
  readonly semVerChange: SemanticChangeType;
  readonly changeEvents: readonly ChangeEvent[];
  /** The raw diff of one of the aspect versions behind the transaction; only when asked for (`raw=true`). */
  readonly rawDiff?: readonly JsonPatchOperation[];
  /** `aspect:version;…`: the version of each aspect of the entity current at `timestamp` (0 is the latest). */
  readonly versionStamp: string;
}

/** Names DataHub still accepts for renamed categories. */
const CATEGORY_ALIASES: Readonly<Record<string, ChangeCategory>> = { OWNER: 'OWNERSHIP' };

/** Categories whose name has several words, accepted in any spelling that contains every word. */
const COMPOUND_CATEGORIES: readonly ChangeCategory[] = [
  'GLOSSARY_TERM',
  'TECHNICAL_SCHEMA',
  'STRUCTURED_PROPERTY',
  'ASSET_MEMBERSHIP',
];

/**
 * Reads one category name as DataHub's converter does: case-insensitively; `OWNER` for `OWNERSHIP`; a compound name in
 * any spelling holding each of its words (`technical_schema`, `Technical Schema`, `technical-schema`). Throws
 * {@link BadRequestError} for anything else.
 */
export function parseCategory(text: string): ChangeCategory {
  const upper = text.trim().toUpperCase();
  const aliased = CATEGORY_ALIASES[upper];
  if (aliased !== undefined) return aliased;
  const compound = COMPOUND_CATEGORIES.find((category) => category.split('_').every((word) => upper.includes(word)));
  if (compound !== undefined) return compound;
  const exact = CHANGE_CATEGORIES.find((category) => category === upper);
  if (exact === undefined) {
    throw new BadRequestError(
      `Invalid value '${text}' for parameter 'categories': not a change category (one of ${CHANGE_CATEGORIES.join(', ')})`,
    );
  }
  return exact;
}

/**
 * The categories a request names, in the order first named, without repeats: each value may be a comma-separated
 * list, and the parameter may be repeated. Empty items are skipped; at least one category is required.
 */
export function parseCategories(values: readonly string[]): ChangeCategory[] {
  const categories: ChangeCategory[] = [];
  for (const value of values) {
    for (const item of value.split(',')) {
      if (item.trim() === '') continue;
      const category = parseCategory(item);
      if (!categories.includes(category)) categories.push(category);
    }
  }
  if (categories.length === 0) {
    throw new BadRequestError("Required request parameter 'categories' for method parameter type Set is not present");
  }
  return categories;
}
