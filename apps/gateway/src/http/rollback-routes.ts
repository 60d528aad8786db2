import { z } from 'zod';
import { defineRoute, type RequestContext, type Route, type RouteCaller } from '@strata/http';
import {
  BadGatewayError,
  ForbiddenError,
  validateProposal,
  type EntityRegistry,
  type ValidatedProposal,
} from '@strata/model';
import { TimeSlice } from '@strata/timing';
import type { ProposalSubmitter } from '../ingest/proposal-submitter';

export interface RollbackRouteOptions {
  readonly registry: EntityRegistry;
  readonly submitter: ProposalSubmitter;
  /** Calls the routes of the services behind the gateway: the writer's plan of a rollback. */
  readonly call: RouteCaller;
  readonly maxAspectBytes: number;
}

/** How long a rollback waits for its writes to be applied: a run may have written many. */
const ROLLBACK_TIMEOUT_MS = 120_000;

const planAnswer = z.object({
  proposals: z.array(
    z.object({
      entityType: z.string(),
      entityUrn: z.string(),
      changeType: z.enum(['UPSERT', 'DELETE']),
      aspectName: z.string(),
      value: z.record(z.string(), z.unknown()).optional(),
      systemMetadata: z.record(z.string(), z.unknown()).optional(),
      headers: z.record(z.string(), z.string()).optional(),
    }),
  ),
  response: z.record(z.string(), z.unknown()),
});

/**
 * `POST /runs?action=rollback`: DataHub's rollback of an ingestion run, as `datahub ingest rollback` calls it. The
 * metadata-writer plans it from what the run wrote last and the timeseries values it wrote (`POST
 * /internal/runs/rollback-plan`); unless `dryRun`, the gateway publishes the planned writes as ordinary proposals of
 * the caller and answers once every one is applied.
 * Rolling back is the right of whoever manages ingestion sources (the route's access), as in DataHub — except for the
 * security inputs a run may have written (users' status, memberships, policies…), which keep their guard: a run is no
 * way around them (docs/adr/0018).
 *
 * `POST /entities?action=deleteAll` is the same rollback of what one version of a model registry wrote, as
 * `datahub delete by-registry` calls it: planned by the writer (`POST /internal/registries/rollback-plan`), allowed
 * to whoever may delete every entity it touches, and published the same way.
 */
export function rollbackRoutes(options: RollbackRouteOptions): Route[] {
  return [
    defineRoute({
      method: 'POST',
      resource: '/runs',
      action: 'rollback',
      family: 'restli',
      access: {
        kind: 'resource',
        group: 'ENTITY',
        operations: ['UPDATE', 'DELETE'],
        resource: { in: 'type', type: 'dataHubIngestionSource' },
        message: 'User is unauthorized to update entity',
      },
      summary: 'Roll back what an ingestion run wrote: restore earlier versions, remove what it created.',
      description:
        'Soft by default (`safe`, or the deprecated `hardDelete: false`): an entity the run created is hidden with status.removed and keeps what other runs wrote; hard (`safe: false` or `hardDelete: true`) deletes it for good. Every other value the run wrote last goes back to the newest version another run wrote, or is removed. The timeseries values the run wrote are removed too, and counted in `aspectsReverted`. `dryRun` says what would happen to the versioned values (as DataHub, it leaves the timeseries values out) and changes nothing.',
      body: z.object({
        runId: z.string({ error: 'runId must be a string' }).min(1, 'runId must not be empty'),
        dryRun: z.boolean().optional(),
        hardDelete: z.boolean().optional(),
        safe: z.boolean().optional(),
      }),
      example: { body: { runId: 'postgres-2026_11_23-10_00_00', dryRun: true, safe: true } },
      handle: async ({ body, context }) => {
        const hard = body.safe !== undefined ? !body.safe : (body.hardDelete ?? false);
        const dryRun = body.dryRun ?? false;
        const plan = planOf(
          await options.call(
            { method: 'POST', resource: '/internal/runs/rollback-plan', body: { runId: body.runId, hard, dryRun } },
            context,
          ),
        );
        if (!dryRun) await publish(options, plan.proposals, context);
        return { body: { value: plan.response } };
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/entities',
      action: 'deleteAll',
      family: 'restli',
      access: { kind: 'writes' },
      summary: 'Roll back everything one version of a model registry wrote (`datahub delete by-registry`).',
      description:
        'Every latest value whose system metadata names the registry and version of `registryId` ' +
        '(`<name>:<version>`, both compared whole) goes back to the newest version written under another, or is ' +
        'removed; an entity whose key it wrote is hidden with status.removed, as DataHub does (`soft`, which the CLI ' +
        'sends, changes nothing). Entities already soft-deleted are left out. Needs the right to delete each entity ' +
        'touched, checked before anything is written, dry run or not. `dryRun` says what would happen and changes ' +
        'nothing. Answers `{entitiesAffected, aspectsAffected, entitiesDeleted, aspectRowSummaries}` (the first 100 ' +
        'rows). Strata loads no registry plugins: only values whose writer put `registryName` and `registryVersion` ' +
        'in their system metadata match.',
      body: z.object({
        registryId: z.string({ error: 'registryId must be a string of the form <name>:<version>' }),
        dryRun: z.boolean({ error: 'dryRun must be a boolean' }).optional(),
        soft: z.boolean({ error: 'soft must be a boolean' }).optional(),
      }),
      example: { body: { registryId: 'mycompany-dq-model:0.0.1', dryRun: true } },
      handle: async ({ body, context }) => {
        const plan = planOf(
          await options.call(
            { method: 'POST', resource: '/internal/registries/rollback-plan', body: { registryId: body.registryId } },
            context,
          ),
        );
        await requireDeletion(options, plan.proposals, context);
        if (body.dryRun !== true) await publish(options, plan.proposals, context);
        return { body: { value: plan.response } };
      },
    }),
  ];
}

type PlannedProposal = z.infer<typeof planAnswer>['proposals'][number];

/** The writer's plan, as its answer carries it. */
function planOf(answer: unknown): z.infer<typeof planAnswer> {
  const plan = planAnswer.safeParse(answer);
  if (!plan.success) throw new BadGatewayError('The metadata writer answered a rollback plan in an unexpected shape');
  return plan.data;
}

/**
 * DataHub's check of `deleteAll`: the right to delete every entity it touches (ENTITY DELETE), as the caller, dry run
 * or not — the policies only, since what is written is then checked as any rollback's writes are.
 */
async function requireDeletion(
  options: RollbackRouteOptions,
  planned: readonly PlannedProposal[],
  context: RequestContext,
): Promise<void> {
  const entities = new Map(planned.map((proposal) => [proposal.entityUrn, proposal.entityType]));
  const deletions = [...entities].map(([entityUrn, entityType]) =>
    validateProposal(options.registry, {
      entityType,
      entityUrn,
      changeType: 'DELETE',
      aspectName: options.registry.entity(entityType)?.keyAspect.name ?? '',
    }),
  );
  try {
    await options.submitter.authorize({ kind: 'policies', context }, deletions);
  } catch (error) {
    if (error instanceof ForbiddenError) throw new ForbiddenError('User is unauthorized to delete entities.');
    throw error;
  }
}

/**
 * Publishes the writes a rollback planned as ordinary proposals of the caller and waits until every one is applied.
 * Rolling back is the right the route asked for; the security inputs among the writes keep their guards.
 */
async function publish(
  options: RollbackRouteOptions,
  planned: readonly PlannedProposal[],
  context: RequestContext,
): Promise<void> {
  if (planned.length === 0) return;
  const slice = new TimeSlice();
  const proposals: ValidatedProposal[] = [];
  for (const proposal of planned) {
    proposals.push(
      validateProposal(
        options.registry,
        {
          entityType: proposal.entityType,
          entityUrn: proposal.entityUrn,
          changeType: proposal.changeType,
          aspectName: proposal.aspectName,
          ...(proposal.value === undefined
            ? {}
            : { aspect: { value: JSON.stringify(proposal.value), contentType: 'application/json' } }),
          ...(proposal.systemMetadata === undefined ? {} : { systemMetadata: proposal.systemMetadata }),
          ...(proposal.headers === undefined ? {} : { headers: proposal.headers }),
        },
        { maxAspectBytes: options.maxAspectBytes },
      ),
    );
    await slice.pause();
  }
  await options.submitter.submit(proposals, {
    ...context,
    authorization: { kind: 'guards', context },
    wait: true,
    outcomeTimeoutMs: ROLLBACK_TIMEOUT_MS,
  });
}
