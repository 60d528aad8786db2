import { z } from 'zod';
import { defineRoute, type Route, type RouteCaller } from '@strata/http';
import { BadGatewayError, validateProposal, type EntityRegistry, type ValidatedProposal } from '@strata/model';
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
    }),
  ),
  response: z.record(z.string(), z.unknown()),
});

/**
 * `POST /runs?action=rollback`: DataHub's rollback of an ingestion run, as `datahub ingest rollback` calls it. The
 * metadata-writer plans it from what the run wrote last (`POST /internal/runs/rollback-plan`); unless `dryRun`, the
 * gateway publishes the planned writes as ordinary proposals of the caller and answers once every one is applied.
 * Rolling back is the right of whoever manages ingestion sources (the route's access), as in DataHub — except for the
 * security inputs a run may have written (users' status, memberships, policies…), which keep their guard: a run is no
 * way around them (docs/adr/0018).
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
        'Soft by default (`safe`, or the deprecated `hardDelete: false`): an entity the run created is hidden with status.removed and keeps what other runs wrote; hard (`safe: false` or `hardDelete: true`) deletes it for good. Every other value the run wrote last goes back to the newest version another run wrote, or is removed. `dryRun` says what would happen and changes nothing.',
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
        const answer = await options.call(
          { method: 'POST', resource: '/internal/runs/rollback-plan', body: { runId: body.runId, hard, dryRun } },
          context,
        );
        const plan = planAnswer.safeParse(answer);
        if (!plan.success)
          throw new BadGatewayError('The metadata writer answered a rollback plan in an unexpected shape');
        if (!dryRun && plan.data.proposals.length > 0) {
          const slice = new TimeSlice();
          const proposals: ValidatedProposal[] = [];
          for (const planned of plan.data.proposals) {
            proposals.push(
              validateProposal(
                options.registry,
                {
                  entityType: planned.entityType,
                  entityUrn: planned.entityUrn,
                  changeType: planned.changeType,
                  aspectName: planned.aspectName,
                  ...(planned.value === undefined
                    ? {}
                    : { aspect: { value: JSON.stringify(planned.value), contentType: 'application/json' } }),
                  ...(planned.systemMetadata === undefined ? {} : { systemMetadata: planned.systemMetadata }),
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
        return { body: { value: plan.data.response } };
      },
    }),
  ];
}
