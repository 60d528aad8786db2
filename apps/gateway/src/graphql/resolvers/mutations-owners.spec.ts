import { isSameOwner, systemOwnershipType, withOwners, withoutOwners } from './mutations-owners';

const JDOE = 'urn:li:corpuser:jdoe';
const TECHNICAL = 'urn:li:ownershipType:__system__technical_owner';
const STEWARD = 'urn:li:ownershipType:steward';
const stamp = { time: 1, actor: 'urn:li:corpuser:datahub' };

describe('owners, as DataHub matches them', () => {
  it('names the system ownership type of a legacy type', () => {
    expect(systemOwnershipType('TECHNICAL_OWNER')).toBe(TECHNICAL);
    expect(systemOwnershipType('DATAOWNER')).toBe('urn:li:ownershipType:__system__dataowner');
  });

  it('matches an entry by its type URN, or — without one — by the system type of its legacy type', () => {
    expect(isSameOwner({ owner: JDOE, type: 'CUSTOM', typeUrn: STEWARD }, JDOE, STEWARD)).toBe(true);
    expect(isSameOwner({ owner: JDOE, type: 'TECHNICAL_OWNER', typeUrn: STEWARD }, JDOE, TECHNICAL)).toBe(false);
    expect(isSameOwner({ owner: JDOE, type: 'TECHNICAL_OWNER' }, JDOE, TECHNICAL)).toBe(true);
    expect(isSameOwner({ owner: JDOE, type: 'BUSINESS_OWNER' }, JDOE, TECHNICAL)).toBe(false);
    expect(isSameOwner({ owner: JDOE, type: 'BUSINESS_OWNER' }, JDOE, undefined)).toBe(true);
    expect(isSameOwner({ owner: 'urn:li:corpuser:other', type: 'NONE' }, JDOE, undefined)).toBe(false);
  });

  it('keeps two custom ownership types of one owner apart (both legacy CUSTOM)', () => {
    const current = { owners: [{ owner: JDOE, type: 'CUSTOM', typeUrn: STEWARD }] };
    const other = 'urn:li:ownershipType:approver';

    expect(withOwners(current, [{ owner: JDOE, type: 'CUSTOM', typeUrn: other }], stamp)?.['owners']).toEqual([
      { owner: JDOE, type: 'CUSTOM', typeUrn: STEWARD },
      { owner: JDOE, type: 'CUSTOM', typeUrn: other, source: { type: 'MANUAL' } },
    ]);
    expect(withoutOwners(current, [JDOE], other, stamp)).toBeUndefined();
    expect(withoutOwners(current, [JDOE], STEWARD, stamp)).toEqual({ owners: [], lastModified: stamp });
  });

  it('writes nothing when the owner is already there as it would be written', () => {
    const current = {
      owners: [{ owner: JDOE, type: 'TECHNICAL_OWNER', typeUrn: TECHNICAL, source: { type: 'MANUAL' } }],
      lastModified: { time: 0, actor: JDOE },
    };
    expect(withOwners(current, [{ owner: JDOE, type: 'TECHNICAL_OWNER', typeUrn: TECHNICAL }], stamp)).toBeUndefined();
  });
});
