import type { ChangeCategory } from './change-event';
import {
  dataProductPropertiesGenerator,
  datasetPropertiesGenerator,
  documentInfoGenerator,
  domainPropertiesGenerator,
  editableDatasetPropertiesGenerator,
  glossaryRelatedTermsGenerator,
  glossaryTermInfoGenerator,
} from './documentation-generators';
import {
  applicationsGenerator,
  deprecationGenerator,
  domainsGenerator,
  globalTagsGenerator,
  glossaryTermsGenerator,
  institutionalMemoryGenerator,
  ownershipGenerator,
  statusGenerator,
  structuredPropertiesGenerator,
} from './entity-generators';
import type { ChangeEventGenerator } from './generator';
import { editableSchemaMetadataGenerator, schemaMetadataGenerator } from './schema-generators';

/** The generator of each aspect the timeline describes; generators are per aspect, whatever the entity. */
export const GENERATORS: Readonly<Record<string, ChangeEventGenerator>> = {
  schemaMetadata: schemaMetadataGenerator,
  editableSchemaMetadata: editableSchemaMetadataGenerator,
  globalTags: globalTagsGenerator,
  glossaryTerms: glossaryTermsGenerator,
  ownership: ownershipGenerator,
  institutionalMemory: institutionalMemoryGenerator,
  datasetProperties: datasetPropertiesGenerator,
  editableDatasetProperties: editableDatasetPropertiesGenerator,
  domains: domainsGenerator,
  structuredProperties: structuredPropertiesGenerator,
  applications: applicationsGenerator,
  glossaryTermInfo: glossaryTermInfoGenerator,
  glossaryRelatedTerms: glossaryRelatedTermsGenerator,
  domainProperties: domainPropertiesGenerator,
  dataProductProperties: dataProductPropertiesGenerator,
  documentInfo: documentInfoGenerator,
  status: statusGenerator,
  deprecation: deprecationGenerator,
};

type CategoryAspects = Readonly<Partial<Record<ChangeCategory, readonly string[]>>>;

/** Which aspects feed which category, for the entity types DataHub's timeline registers (DataHub's own table). */
const DATAHUB_REGISTRY: Readonly<Record<string, CategoryAspects>> = {
  dataset: {
    TAG: ['schemaMetadata', 'editableSchemaMetadata', 'globalTags'],
    OWNERSHIP: ['ownership'],
    DOCUMENTATION: [
      'institutionalMemory',
      'editableDatasetProperties',
      'datasetProperties',
      'editableSchemaMetadata',
      'schemaMetadata',
    ],
    GLOSSARY_TERM: ['glossaryTerms', 'editableSchemaMetadata'],
    TECHNICAL_SCHEMA: ['schemaMetadata'],
    DOMAIN: ['domains'],
    STRUCTURED_PROPERTY: ['structuredProperties'],
    APPLICATION: ['applications'],
  },
  glossaryTerm: {
    OWNERSHIP: ['ownership'],
    DOCUMENTATION: ['glossaryTermInfo'],
    GLOSSARY_TERM: ['glossaryRelatedTerms'],
    DOMAIN: ['domains'],
    STRUCTURED_PROPERTY: ['structuredProperties'],
    APPLICATION: ['applications'],
  },
  domain: {
    OWNERSHIP: ['ownership'],
    DOCUMENTATION: ['institutionalMemory', 'domainProperties'],
    STRUCTURED_PROPERTY: ['structuredProperties'],
  },
  dataProduct: {
    OWNERSHIP: ['ownership'],
    DOCUMENTATION: ['dataProductProperties'],
    TAG: ['globalTags'],
    GLOSSARY_TERM: ['glossaryTerms'],
    DOMAIN: ['domains'],
    STRUCTURED_PROPERTY: ['structuredProperties'],
    APPLICATION: ['applications'],
    ASSET_MEMBERSHIP: ['dataProductProperties'],
  },
  document: {
    LIFECYCLE: ['documentInfo'],
    DOCUMENTATION: ['documentInfo'],
    PARENT: ['documentInfo'],
    RELATED_ENTITIES: ['documentInfo'],
  },
};

/**
 * Every other entity type (DataHub's timeline refuses them): each aspect it declares feeds the category its generator
 * describes, the same way it does for a dataset.
 */
const ANY_ENTITY: CategoryAspects = {
  TAG: ['schemaMetadata', 'editableSchemaMetadata', 'globalTags'],
  OWNERSHIP: ['ownership'],
  DOCUMENTATION: ['institutionalMemory', 'editableSchemaMetadata', 'schemaMetadata'],
  GLOSSARY_TERM: ['glossaryTerms', 'editableSchemaMetadata'],
  TECHNICAL_SCHEMA: ['schemaMetadata'],
  DOMAIN: ['domains'],
  STRUCTURED_PROPERTY: ['structuredProperties'],
  APPLICATION: ['applications'],
};

/** What Strata adds for every entity type: soft deletion and reinstatement, and deprecation. */
const EVERY_ENTITY: CategoryAspects = {
  LIFECYCLE: ['status'],
  DEPRECATION: ['deprecation'],
};

/** An aspect that feeds the requested categories, with those it feeds in the order requested. */
export interface FeedingAspect {
  readonly aspect: string;
  readonly categories: readonly ChangeCategory[];
  readonly generator: ChangeEventGenerator;
}

/**
 * The aspects of an entity type that feed the requested categories, in the entity's declaration order (`declared`:
 * its aspects' names), each with the requested categories it feeds. Aspects the entity does not declare are left out.
 */
export function aspectsFeeding(
  entityType: string,
  declared: readonly string[],
  categories: readonly ChangeCategory[],
): FeedingAspect[] {
  const registry = DATAHUB_REGISTRY[entityType] ?? ANY_ENTITY;
  const feeds = (aspect: string, category: ChangeCategory) =>
    (registry[category] ?? []).includes(aspect) || (EVERY_ENTITY[category] ?? []).includes(aspect);
  return declared.flatMap((aspect) => {
    const generator = GENERATORS[aspect];
    const fed = categories.filter((category) => feeds(aspect, category));
    return generator === undefined || fed.length === 0 ? [] : [{ aspect, categories: fed, generator }];
  });
}
