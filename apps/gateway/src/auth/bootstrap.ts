import { DEFAULT_POLICIES, ROOT_USER } from '@strata/auth';
import { validateProposal, type EntityRegistry, type ValidatedProposal } from '@strata/model';

/**
 * What a catalog needs before anyone can sign in, written by every gateway at start as the system actor: the root user
 * (whose tokens need it to exist) and the default policies. Root's own policies are written again at every start, as
 * DataHub does, so that nobody can lock root out for good; the others are written only when absent
 * (`If-None-Match: *`), so that an operator's edits stay.
 */
export function bootstrapProposals(registry: EntityRegistry): ValidatedProposal[] {
  const aspect = (value: unknown) => ({ value: JSON.stringify(value), contentType: 'application/json' });
  return [
    validateProposal(registry, {
      entityType: 'corpuser',
      entityUrn: ROOT_USER,
      changeType: 'CREATE',
      aspectName: 'corpUserInfo',
      aspect: aspect({ active: true, displayName: 'DataHub', fullName: 'DataHub' }),
      headers: { 'If-None-Match': '*' },
    }),
    ...DEFAULT_POLICIES.map((policy) =>
      validateProposal(registry, {
        entityType: 'dataHubPolicy',
        entityUrn: policy.urn,
        aspectName: 'dataHubPolicyInfo',
        aspect: aspect(policy.info),
        ...(policy.info.editable
          ? { changeType: 'CREATE', headers: { 'If-None-Match': '*' } }
          : { changeType: 'UPSERT' }),
      }),
    ),
  ];
}
