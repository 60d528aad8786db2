import { testEntityRegistry } from '@strata/model/testing';
import type { EntitySpec } from '@strata/model';
import { entityNameFields, nameFieldsOf } from './entity-name';

const registry = testEntityRegistry();
const entity = (name: string) => registry.entity(name) as EntitySpec;

describe('the fields that name an entity (`_entityName`)', () => {
  it("are the fields each type's annotations alias as _entityName", () => {
    expect(nameFieldsOf(entity('dataset'))).toEqual(['name']);
    expect(nameFieldsOf(entity('chart'))).toEqual(['title']);
    expect(nameFieldsOf(entity('dashboard'))).toEqual(['title']);
    expect(nameFieldsOf(entity('dataJob'))).toEqual(['name']);
    expect(nameFieldsOf(entity('corpuser'))).toContain('displayName');
    expect(nameFieldsOf(entity('glossaryTerm'))).toEqual(['name']);
  });

  it('are computed once per type, and none for an unknown type', () => {
    const fields = entityNameFields(registry);
    expect(fields('dataset')).toBe(fields('dataset'));
    expect(fields('noSuchType')).toEqual([]);
  });
});
