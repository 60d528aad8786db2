import { testEntityRegistry } from '@strata/model/testing';
import { labelEdit, TAGS, TERMS } from './mutations-labels';
import type { Resource } from './mutations-support';

const registry = testEntityRegistry();
const dataset = registry.entity('dataset');
if (dataset === undefined) throw new Error('no dataset entity');
const target = { urn: 'urn:li:dataset:(urn:li:dataPlatform:hive,t,PROD)', entity: dataset };
const stamp = { time: 1, actor: 'urn:li:corpuser:datahub' };
const onEntity: Resource = { target, subResource: undefined, subResourceType: undefined };
const onField = (field: string): Resource => ({ target, subResource: field, subResourceType: 'DATASET_FIELD' });

describe('label edits', () => {
  it("keys each label by its URN in the patch path, '/' and '~' escaped", () => {
    const edit = labelEdit(TAGS, onEntity, ['urn:li:tag:a/b~c'], true, stamp);

    expect(edit.aspect).toBe('globalTags');
    expect(edit.change(undefined)).toEqual({
      kind: 'patch',
      operations: [{ op: 'add', path: '/tags/urn:li:tag:a~1b~0c', value: { tag: 'urn:li:tag:a/b~c' } }],
    });
  });

  it("edits a field's terms within its entry, stamping the field's list", () => {
    const edit = labelEdit(TERMS, onField('a/b'), ['urn:li:glossaryTerm:x'], true, stamp);

    expect(edit.aspect).toBe('editableSchemaMetadata');
    expect(edit.change(undefined)).toEqual({
      kind: 'patch',
      operations: [
        {
          op: 'add',
          path: '/editableSchemaFieldInfo/a~1b/glossaryTerms/terms/urn:li:glossaryTerm:x',
          value: { urn: 'urn:li:glossaryTerm:x' },
        },
        { op: 'add', path: '/editableSchemaFieldInfo/a~1b/glossaryTerms/auditStamp', value: stamp },
      ],
    });
  });

  it('removes only what is there, and writes nothing when nothing is', () => {
    const current = { editableSchemaFieldInfo: [{ fieldPath: 'id', globalTags: { tags: [{ tag: 'urn:li:tag:a' }] } }] };
    const edit = labelEdit(TAGS, onField('id'), ['urn:li:tag:a', 'urn:li:tag:b'], false, stamp);

    expect(edit.change(current)).toEqual({
      kind: 'patch',
      operations: [{ op: 'remove', path: '/editableSchemaFieldInfo/id/globalTags/tags/urn:li:tag:a' }],
    });
    expect(labelEdit(TAGS, onField('other'), ['urn:li:tag:a'], false, stamp).change(current)).toBeUndefined();
  });
});
