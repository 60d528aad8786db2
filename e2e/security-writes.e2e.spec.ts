/**
 * The security inputs — everything authentication and authorization read: users' existence, status and credentials,
 * group and role memberships, groups' roles and members, roles, policies, tokens, secrets — are written only by a caller
 * holding the privilege that guards each, with authentication on or off. Every write of the list `@strata/auth` keeps
 * (SECURITY_INPUTS, which the gateway's reads are held to) is tried anonymously and as a plain user, through every
 * write path (single, batch, legacy snapshot, PATCH, hard delete, rollback of a run), and must be refused with
 * 401/403, leaving nothing written; root may make each. On the standalone process with authentication off (the
 * default) and on, and on the distributed deployment (authentication on), all shared: everything is named after the run.
 */
import { randomUUID } from 'node:crypto';
import { SECURITY_INPUTS, TokenService } from '@strata/auth';
import {
  eventually,
  proposalOf,
  sharedDeployment,
  TestHttpClient,
  type ProposalJson,
  type SharedDeployment,
  type SharedDeploymentName,
} from '@strata/testing';

const ROOT = 'urn:li:corpuser:datahub';
const ADMIN = 'urn:li:dataHubRole:Admin';
const stamp = { time: 0, actor: ROOT };

describe.each(['standalone', 'standalone-auth', 'distributed'] as const satisfies readonly SharedDeploymentName[])(
  '%s',
  (name) => {
    const run = `sw${randomUUID().slice(0, 8)}`;
    const plain = `urn:li:corpuser:${run}_plain`;
    const group = `urn:li:corpGroup:${run}_eng`;
    /** A value for a write of every security input, by entity type and aspect (the key aspect: its deletion). */
    const samples: Record<string, { urn: string; values: Record<string, unknown> }> = {
      corpuser: {
        urn: ROOT,
        values: {
          corpUserKey: undefined,
          status: { removed: true },
          corpUserStatus: { status: 'SUSPENDED', lastModified: stamp },
          corpUserCredentials: { salt: 'c2FsdA==', hashedPassword: 'scrypt$32768$8$1$AAAA' },
          groupMembership: { groups: [group] },
          nativeGroupMembership: { nativeGroups: [group] },
          roleMembership: { roles: [ADMIN] },
        },
      },
      corpGroup: {
        urn: group,
        values: {
          corpGroupKey: undefined,
          roleMembership: { roles: [ADMIN] },
          corpGroupInfo: { admins: [plain], members: [plain], groups: [] },
        },
      },
      dataHubRole: {
        urn: `urn:li:dataHubRole:${run}`,
        values: { dataHubRoleKey: undefined, dataHubRoleInfo: { name: run, description: 'a role anyone could hold' } },
      },
      dataHubPolicy: {
        urn: `urn:li:dataHubPolicy:${run}`,
        values: {
          dataHubPolicyKey: undefined,
          dataHubPolicyInfo: {
            displayName: 'Everyone may do everything',
            description: 'an escalation',
            type: 'PLATFORM',
            state: 'ACTIVE',
            privileges: ['MANAGE_POLICIES'],
            actors: { allUsers: true },
          },
        },
      },
      dataHubAccessToken: {
        urn: `urn:li:dataHubAccessToken:${run}`,
        values: {
          dataHubAccessTokenKey: undefined,
          dataHubAccessTokenInfo: { name: run, actorUrn: ROOT, ownerUrn: plain, createdAt: 0 },
        },
      },
      dataHubSecret: {
        urn: `urn:li:dataHubSecret:${run}`,
        values: { dataHubSecretKey: undefined, dataHubSecretValue: { name: run, value: 'stolen' } },
      },
    };
    /** Every write of every input: an UPSERT of each input aspect, the DELETE of each key (the entity's deletion). */
    const writes: ProposalJson[] = Object.entries(samples).flatMap(([, { urn, values }]) =>
      Object.entries(values).map(([aspect, value]) =>
        value === undefined
          ? proposalOf(urn, aspect, undefined, { changeType: 'DELETE' })
          : proposalOf(urn, aspect, value),
      ),
    );

    let deployment: SharedDeployment;
    let http: TestHttpClient;
    let root: Record<string, string>;
    let user: Record<string, string>;

    const as = (headers: Record<string, string>) => ({
      ingest: (proposal: ProposalJson) => http.post('/aspects?action=ingestProposal', { proposal }, headers),
      batch: (proposals: ProposalJson[]) => http.post('/aspects?action=ingestProposalBatch', { proposals }, headers),
      snapshot: (entity: unknown) => http.post('/entities?action=ingest', { entity: { value: entity } }, headers),
      delete: (urn: string) => http.post('/entities?action=delete', { urn }, headers),
      rollback: (runId: string) => http.post('/runs?action=rollback', { runId, dryRun: false, safe: false }, headers),
    });
    /** What root reads of an entity: its aspects' values by name (only the key when nothing was written). */
    const stateOf = async (urn: string) => {
      const response = await http.get(`/entitiesV2/${encodeURIComponent(urn)}`, root);
      expect(response.status).toBe(200);
      const aspects = (response.json as { aspects: Record<string, { value: unknown }> }).aspects;
      return Object.fromEntries(Object.entries(aspects).map(([aspect, { value }]) => [aspect, value]));
    };
    const everything = () => Promise.all(Object.values(samples).map(({ urn }) => stateOf(urn)));
    const refused = (status: number, anonymous: boolean) => (anonymous ? status === 401 : status === 403);

    beforeAll(async () => {
      deployment = await sharedDeployment(name);
      http = new TestHttpClient(deployment.baseUrl);
      const tokens = new TokenService({ signingKey: deployment.signingKey, now: Date.now });
      const bearer = async (actor: string) => ({
        Authorization: `Bearer ${(await tokens.mint(actor, 'SESSION', 3_600_000)).token}`,
      });
      root = await bearer('datahub');
      // The plain user exists (root creates it: creating users is guarded too), and holds no privilege.
      expect((await as(root).ingest(proposalOf(plain, 'corpUserInfo', { active: true }))).status).toBe(200);
      user = await bearer(plain.slice('urn:li:corpuser:'.length));
    }, 120_000);

    it('tries a write of every security input the list holds', () => {
      for (const [type, entity] of Object.entries(SECURITY_INPUTS)) {
        const sample = samples[type];
        expect({ type, sampled: sample !== undefined }).toEqual({ type, sampled: true });
        expect(Object.keys(sample?.values ?? {})).toContain(entity.keyAspect);
        if (entity.aspects !== '*') {
          for (const aspect of Object.keys(entity.aspects)) expect(Object.keys(sample?.values ?? {})).toContain(aspect);
        }
      }
    });

    it.each([
      ['anonymously', true],
      ['as a plain user', false],
    ])('refuses each of them %s, through every write path, and writes nothing', async (_as, anonymous) => {
      const caller = as(anonymous ? {} : user);
      const before = await everything();
      for (const write of writes) {
        const single = await caller.ingest(write);
        expect({ write, status: single.status, refused: refused(single.status, anonymous) }).toMatchObject({
          refused: true,
        });
      }
      // In a batch beside an ordinary write, which is refused with them: a batch is checked before it is published.
      const batch = await caller.batch([proposalOf(plain, 'corpUserEditableInfo', { aboutMe: run }), ...writes]);
      expect(refused(batch.status, anonymous)).toBe(true);
      // As a legacy snapshot.
      const snapshot = await caller.snapshot({
        'com.linkedin.metadata.snapshot.CorpUserSnapshot': {
          urn: ROOT,
          aspects: [{ 'com.linkedin.identity.CorpUserStatus': { status: 'SUSPENDED', lastModified: stamp } }],
        },
      });
      expect(refused(snapshot.status, anonymous)).toBe(true);
      // As a PATCH.
      const patch = await caller.ingest(
        proposalOf(plain, 'roleMembership', [{ op: 'add', path: '/roles/0', value: ADMIN }], { changeType: 'PATCH' }),
      );
      expect(refused(patch.status, anonymous)).toBe(true);
      // As hard deletes of the entities.
      for (const urn of [ROOT, group, samples['dataHubPolicy']?.urn ?? '']) {
        const deleted = await caller.delete(urn);
        expect({ urn, refused: refused(deleted.status, anonymous) }).toEqual({ urn, refused: true });
      }
      expect(await everything()).toEqual(before);
    });

    it('refuses the three lock-outs that made this list: an Admin role, a suspended root, root deleted', async () => {
      for (const headers of [{}, user]) {
        const caller = as(headers);
        expect(
          (await caller.ingest(proposalOf(plain, 'roleMembership', { roles: [ADMIN] }))).status,
        ).toBeGreaterThanOrEqual(401);
        expect(
          (await caller.ingest(proposalOf(ROOT, 'corpUserStatus', { status: 'SUSPENDED', lastModified: stamp })))
            .status,
        ).toBeGreaterThanOrEqual(401);
        expect((await caller.delete(ROOT)).status).toBeGreaterThanOrEqual(401);
      }
      expect(await stateOf(plain)).not.toHaveProperty('roleMembership');
      const rootState = await stateOf(ROOT);
      expect(rootState['corpUserStatus']).not.toEqual(expect.objectContaining({ status: 'SUSPENDED' }));
      expect(rootState).toHaveProperty('corpUserInfo');
      // Root still acts.
      expect((await http.get('/openapi/v1/tokens', root)).status).toBe(200);
    });

    it('lets root make each of them, and a caller who may not create users change users but not create one', async () => {
      const created = samples['dataHubRole']?.urn ?? '';
      expect(
        (await as(root).ingest(proposalOf(created, 'dataHubRoleInfo', { name: run, description: 'by root' }))).status,
      ).toBe(200);
      expect(
        (await as(root).ingest(proposalOf(group, 'corpGroupInfo', { admins: [], members: [plain], groups: [] })))
          .status,
      ).toBe(200);
      const newcomer = `urn:li:corpuser:${run}_newcomer`;
      const described = proposalOf(plain, 'corpUserEditableInfo', { aboutMe: 'described by someone else' });
      const creating = proposalOf(newcomer, 'corpUserEditableInfo', { aboutMe: 'nobody may create me' });
      if (!deployment.authentication) {
        // With authentication off, anyone may describe a user that exists, as DataHub lets anyone write anything…
        expect((await as({}).ingest(described)).status).toBe(200);
        // …but not bring one into being: the writer refuses it when the entity does not exist.
        const refusedCreation = await as({}).ingest(creating);
        expect(refusedCreation.status).toBe(403);
        expect((refusedCreation.json as { message: string }).message).toContain('MANAGE_USERS_AND_GROUPS');
      } else {
        expect((await as({}).ingest(creating)).status).toBe(401);
      }
      expect(Object.keys(await stateOf(newcomer))).toEqual(['corpUserKey']);
      expect((await http.get(`/aspects/${encodeURIComponent(newcomer)}?aspect=corpUserKey`, root)).status).toBe(404);
    });

    it('lets no rollback of a run undo a security write for a caller who could not make it', async () => {
      const runId = `${run}-identity-run`;
      const member = proposalOf(plain, 'groupMembership', { groups: [group] }, { systemMetadata: { runId } });
      expect((await as(root).ingest(member)).status).toBe(200);
      for (const headers of [{}, user]) {
        const rollback = await as(headers).rollback(runId);
        // With authentication off, rolling back is anyone's (as in DataHub) — but not the membership it would undo.
        expect(refused(rollback.status, Object.keys(headers).length === 0)).toBe(true);
      }
      await eventually(async () => {
        expect((await stateOf(plain))['groupMembership']).toEqual({ groups: [group] });
      });
      const byRoot = await as(root).rollback(runId);
      expect(byRoot.status).toBe(200);
      expect(await stateOf(plain)).not.toHaveProperty('groupMembership');
    });
  },
);
