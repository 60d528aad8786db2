import type { JsonObject } from '@strata/model';
import type { ChangeCategory } from './change-event';
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

const urn = 'urn:li:dataset:(urn:li:dataPlatform:hive,db.t,PROD)';
const context = { entityUrn: urn, stamp: { time: 1000, actor: 'urn:li:corpuser:writer' } };

/** Given two versions, when the generator compares them for `categories`, then… */
function changes(
  generator: ChangeEventGenerator,
  previous: JsonObject | undefined,
  current: JsonObject,
  categories: readonly ChangeCategory[],
) {
  return generator(categories, previous, current, context);
}

describe('globalTags', () => {
  it('given tags replaced, when compared for TAG, then additions and removals come in tag-URN order, MINOR each', () => {
    const events = changes(
      globalTagsGenerator,
      { tags: [{ tag: 'urn:li:tag:pii' }, { tag: 'urn:li:tag:keep' }] },
      { tags: [{ tag: 'urn:li:tag:keep' }, { tag: 'urn:li:tag:legacy' }] },
      ['TAG'],
    );
    expect(events).toEqual([
      {
        entityUrn: urn,
        category: 'TAG',
        operation: 'ADD',
        modifier: 'urn:li:tag:legacy',
        parameters: { tagUrn: 'urn:li:tag:legacy' },
        semVerChange: 'MINOR',
        description: `Tag 'legacy' added to entity '${urn}'.`,
      },
      {
        entityUrn: urn,
        category: 'TAG',
        operation: 'REMOVE',
        modifier: 'urn:li:tag:pii',
        parameters: { tagUrn: 'urn:li:tag:pii' },
        semVerChange: 'MINOR',
        description: `Tag 'pii' removed from entity '${urn}'.`,
      },
    ]);
  });

  it('given a first version, when compared, then every tag is added', () => {
    expect(changes(globalTagsGenerator, undefined, { tags: [{ tag: 'urn:li:tag:a' }] }, ['TAG'])).toHaveLength(1);
  });

  it('given a category it does not describe, when compared, then nothing', () => {
    expect(changes(globalTagsGenerator, undefined, { tags: [{ tag: 'urn:li:tag:a' }] }, ['OWNERSHIP'])).toEqual([]);
  });
});

describe('glossaryTerms', () => {
  it('given a term added, when compared for GLOSSARY_TERM, then a MINOR ADD naming the term', () => {
    expect(
      changes(glossaryTermsGenerator, { terms: [] }, { terms: [{ urn: 'urn:li:glossaryTerm:Finance.Revenue' }] }, [
        'GLOSSARY_TERM',
      ]),
    ).toEqual([
      {
        entityUrn: urn,
        category: 'GLOSSARY_TERM',
        operation: 'ADD',
        modifier: 'urn:li:glossaryTerm:Finance.Revenue',
        parameters: { termUrn: 'urn:li:glossaryTerm:Finance.Revenue' },
        semVerChange: 'MINOR',
        description: `Term 'Finance.Revenue' added to entity '${urn}'.`,
      },
    ]);
  });
});

describe('ownership', () => {
  const jdoe = { owner: 'urn:li:corpuser:jdoe', type: 'TECHNICAL_OWNER' };

  it('given an owner added, when compared for OWNERSHIP, then a MINOR ADD with the owner and its type', () => {
    expect(changes(ownershipGenerator, undefined, { owners: [jdoe] }, ['OWNERSHIP'])).toEqual([
      {
        entityUrn: urn,
        category: 'OWNERSHIP',
        operation: 'ADD',
        modifier: 'urn:li:corpuser:jdoe',
        parameters: { ownerUrn: 'urn:li:corpuser:jdoe', ownerType: 'TECHNICAL_OWNER' },
        semVerChange: 'MINOR',
        description: `'jdoe' added as a \`TECHNICAL_OWNER\` of '${urn}'.`,
      },
    ]);
  });

  it("given an owner's type changed, when compared, then a PATCH MODIFY whose modifier is the new type", () => {
    const custom = { ...jdoe, type: 'CUSTOM', typeUrn: 'urn:li:ownershipType:steward' };
    expect(changes(ownershipGenerator, { owners: [jdoe] }, { owners: [custom] }, ['OWNERSHIP'])).toEqual([
      {
        entityUrn: urn,
        category: 'OWNERSHIP',
        operation: 'MODIFY',
        modifier: 'CUSTOM',
        parameters: {
          ownerUrn: 'urn:li:corpuser:jdoe',
          ownerType: 'CUSTOM',
          ownerTypeUrn: 'urn:li:ownershipType:steward',
        },
        semVerChange: 'PATCH',
        description: `'jdoe''s ownership type changed from 'TECHNICAL_OWNER' to 'CUSTOM' for '${urn}'.`,
      },
    ]);
  });

  it('given an owner removed, when compared, then a MINOR REMOVE', () => {
    const [event] = changes(ownershipGenerator, { owners: [jdoe] }, { owners: [] }, ['OWNERSHIP']);
    expect(event).toMatchObject({ operation: 'REMOVE', semVerChange: 'MINOR' });
    expect(event?.description).toBe(`'jdoe' removed as a \`TECHNICAL_OWNER\` of '${urn}'.`);
  });
});

describe('institutionalMemory', () => {
  const link = (description: string) => ({ url: 'https://wiki/x', description });

  it('given a link added, when compared for DOCUMENTATION, then a MINOR ADD in DataHub words', () => {
    expect(changes(institutionalMemoryGenerator, undefined, { elements: [link('Wiki')] }, ['DOCUMENTATION'])).toEqual([
      {
        entityUrn: urn,
        category: 'DOCUMENTATION',
        operation: 'ADD',
        modifier: 'https://wiki/x',
        semVerChange: 'MINOR',
        description: `Institutional Memory 'https://wiki/x' with documentation of '${urn}' has been added: 'Wiki'`,
      },
    ]);
  });

  it("given a link's description changed, when compared, then a PATCH MODIFY", () => {
    const [event] = changes(institutionalMemoryGenerator, { elements: [link('Old')] }, { elements: [link('New')] }, [
      'DOCUMENTATION',
    ]);
    expect(event).toMatchObject({ operation: 'MODIFY', semVerChange: 'PATCH' });
    expect(event?.description).toBe(
      `Documentation of Institutional Memory 'https://wiki/x' of  '${urn}' has been changed from 'Old' to 'New'.`,
    );
  });
});

describe('domains', () => {
  it('given a domain set, when compared for DOMAIN, then an ADD naming the domain', () => {
    expect(changes(domainsGenerator, undefined, { domains: ['urn:li:domain:sales'] }, ['DOMAIN'])).toEqual([
      {
        entityUrn: urn,
        category: 'DOMAIN',
        operation: 'ADD',
        modifier: 'urn:li:domain:sales',
        parameters: { domainUrn: 'urn:li:domain:sales' },
        semVerChange: 'MINOR',
        description: `Domain 'sales' added to entity '${urn}'.`,
      },
    ]);
  });

  it('given the domain changed, when compared, then the old one is removed and the new one added', () => {
    const events = changes(domainsGenerator, { domains: ['urn:li:domain:a'] }, { domains: ['urn:li:domain:b'] }, [
      'DOMAIN',
    ]);
    expect(events.map((event) => [event.operation, event.modifier])).toEqual([
      ['REMOVE', 'urn:li:domain:a'],
      ['ADD', 'urn:li:domain:b'],
    ]);
  });

  it('given the domain unset, when compared, then a REMOVE; unchanged, nothing', () => {
    expect(changes(domainsGenerator, { domains: ['urn:li:domain:a'] }, { domains: [] }, ['DOMAIN'])).toMatchObject([
      { operation: 'REMOVE' },
    ]);
    expect(
      changes(domainsGenerator, { domains: ['urn:li:domain:a'] }, { domains: ['urn:li:domain:a'] }, ['DOMAIN']),
    ).toEqual([]);
  });
});

describe('structuredProperties', () => {
  const assignment = (values: unknown[]) => ({ propertyUrn: 'urn:li:structuredProperty:io.retention', values });

  it('given a property assigned, when compared, then an ADD with its values as JSON text (doubles as Java writes them)', () => {
    expect(
      changes(
        structuredPropertiesGenerator,
        undefined,
        { properties: [assignment([{ double: 30 }, { string: 'x' }])] },
        ['STRUCTURED_PROPERTY'],
      ),
    ).toEqual([
      {
        entityUrn: urn,
        category: 'STRUCTURED_PROPERTY',
        operation: 'ADD',
        modifier: 'urn:li:structuredProperty:io.retention',
        parameters: { propertyUrn: 'urn:li:structuredProperty:io.retention', propertyValues: '[30.0,"x"]' },
        semVerChange: 'MINOR',
        description: `Structured property 'io.retention' added to entity '${urn}'.`,
      },
    ]);
  });

  it("given a property's values changed, when compared, then a MODIFY; removed, a REMOVE", () => {
    const modified = changes(
      structuredPropertiesGenerator,
      { properties: [assignment([{ double: 30 }])] },
      { properties: [assignment([{ double: 90 }])] },
      ['STRUCTURED_PROPERTY'],
    );
    expect(modified).toMatchObject([{ operation: 'MODIFY', parameters: { propertyValues: '[90.0]' } }]);
    const removed = changes(
      structuredPropertiesGenerator,
      { properties: [assignment([{ double: 30 }])] },
      { properties: [] },
      ['STRUCTURED_PROPERTY'],
    );
    expect(removed).toMatchObject([
      { operation: 'REMOVE', description: `Structured property 'io.retention' removed from entity '${urn}'.` },
    ]);
  });
});

describe('applications', () => {
  it('given an application joined and another left, when compared for APPLICATION, then a REMOVE and an ADD in URN order', () => {
    const events = changes(
      applicationsGenerator,
      { applications: ['urn:li:application:b'] },
      { applications: ['urn:li:application:a'] },
      ['APPLICATION'],
    );
    expect(events).toEqual([
      {
        entityUrn: urn,
        category: 'APPLICATION',
        operation: 'ADD',
        modifier: 'urn:li:application:a',
        semVerChange: 'MINOR',
        description: `Application 'a' added to entity '${urn}'.`,
      },
      {
        entityUrn: urn,
        category: 'APPLICATION',
        operation: 'REMOVE',
        modifier: 'urn:li:application:b',
        semVerChange: 'MINOR',
        description: `Application 'b' removed from entity '${urn}'.`,
      },
    ]);
  });
});

describe('status', () => {
  it('given the entity soft-deleted then reinstated, when compared for LIFECYCLE, then SOFT_DELETE then REINSTATE', () => {
    expect(changes(statusGenerator, { removed: false }, { removed: true }, ['LIFECYCLE'])).toEqual([
      {
        entityUrn: urn,
        category: 'LIFECYCLE',
        operation: 'SOFT_DELETE',
        semVerChange: 'MINOR',
        description: `Entity '${urn}' has been soft-deleted.`,
      },
    ]);
    expect(changes(statusGenerator, { removed: true }, { removed: false }, ['LIFECYCLE'])).toMatchObject([
      { operation: 'REINSTATE' },
    ]);
  });

  it('given a first version that is not removed, when compared, then nothing: nothing changed', () => {
    expect(changes(statusGenerator, undefined, { removed: false }, ['LIFECYCLE'])).toEqual([]);
  });
});

describe('deprecation', () => {
  it('given the entity deprecated, when compared for DEPRECATION, then a MODIFY with status DEPRECATED', () => {
    expect(
      changes(deprecationGenerator, undefined, { deprecated: true, note: 'use v2', actor: 'urn:li:corpuser:x' }, [
        'DEPRECATION',
      ]),
    ).toEqual([
      {
        entityUrn: urn,
        category: 'DEPRECATION',
        operation: 'MODIFY',
        parameters: { status: 'DEPRECATED' },
        semVerChange: 'MINOR',
        description: `Entity '${urn}' has been deprecated: 'use v2'.`,
      },
    ]);
  });

  it('given deprecation lifted, when compared, then a MODIFY with status ACTIVE', () => {
    expect(changes(deprecationGenerator, { deprecated: true }, { deprecated: false }, ['DEPRECATION'])).toMatchObject([
      { parameters: { status: 'ACTIVE' } },
    ]);
  });
});
