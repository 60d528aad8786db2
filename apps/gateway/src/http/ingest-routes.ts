import { z } from 'zod';
import {
  errorFromCode,
  StrataError,
  ValidationError,
  validateProposal,
  type EntityRegistry,
  type ValidatedProposal,
} from '@strata/model';
import { defineRoute, type RequestContext, type Route, type RouteResponse } from '@strata/http';
import { TimeSlice } from '@strata/timing';
import { proposalsFromSnapshot } from '../domain/snapshot-proposals';
import type { ProposalSubmitter, SubmitResult } from '../ingest/proposal-submitter';

export interface IngestRoutesOptions {
  readonly registry: EntityRegistry;
  readonly submitter: ProposalSubmitter;
  /** DataHub's `ASYNC_INGEST_DEFAULT`: what `async` omitted (or "unset") means. */
  readonly asyncByDefault: boolean;
  readonly maxAspectBytes: number;
  /** Most proposals accepted by one batch request. */
  readonly maxBatchProposals: number;
}

/** Rest.li's `async` action parameter: a string ("true", "false", "unset") in DataHub, a boolean from some clients. */
const asyncParam = z
  .union([z.boolean(), z.enum(['true', 'false', 'unset'])])
  .optional()
  .transform((value) => (value === 'true' ? true : value === 'false' ? false : value === 'unset' ? undefined : value));

/** `?wait=indexed`: answer once the indexers hold the write, like `X-DataHub-Sync-Index-Update: true`. */
const waitParam = z.enum(['indexed'], { error: "wait must be 'indexed'" }).optional();

/** DataHub's header asking a synchronous ingest to update the search index before answering. */
/** The header that asks a write to answer once the read models show it (DataHub's). */
export const SYNC_INDEX_HEADER = 'X-DataHub-Sync-Index-Update';

const proposalObject = z.record(z.string(), z.unknown(), { error: 'must be a JSON object' });

/** A proposal as the documentation shows it. */
const EXAMPLE_PROPOSAL = {
  entityType: 'dataset',
  entityUrn: 'urn:li:dataset:(urn:li:dataPlatform:hive,SampleHiveDataset,PROD)',
  changeType: 'UPSERT',
  aspectName: 'datasetProperties',
  aspect: { value: '{"description": "A sample table"}', contentType: 'application/json' },
};

/**
 * The write endpoints. Every proposal is validated in full before anything is published. Validating and encoding a
 * large aspect (a few megabytes) takes tens of milliseconds a step: the handlers give the event loop a turn between
 * steps once they have held it for a slice ({@link TimeSlice}), so that other requests are not held up behind them.
 */
export function ingestRoutes(options: IngestRoutesOptions): Route[] {
  const { registry, maxAspectBytes } = options;
  const submit = async (
    proposals: ValidatedProposal[],
    context: RequestContext,
    asyncFlag: boolean | undefined,
    waitFor: 'indexed' | undefined,
  ) => {
    // Read-your-writes in the indices is asked for with the header or `?wait=indexed`; it implies waiting.
    const waitForIndexing = waitFor === 'indexed' || context.header(SYNC_INDEX_HEADER)?.toLowerCase() === 'true';
    const wait = waitForIndexing || !(asyncFlag ?? options.asyncByDefault);
    const result = await options.submitter.submit(proposals, {
      ...context,
      authorization: { kind: 'caller', context },
      wait,
      waitForIndexing,
    });
    return { wait, result, headers: outcomeHeaders(result, waitForIndexing) };
  };

  return [
    defineRoute({
      method: 'POST',
      resource: '/aspects',
      action: 'ingestProposal',
      family: 'restli',
      access: { kind: 'writes' },
      summary: 'Ingest one aspect (a MetadataChangeProposal).',
      description:
        'Synchronous by default: answers once the primary store holds the write. With async=true, answers as soon as the proposal is on the log, with its request id. With `X-DataHub-Sync-Index-Update: true` or `wait=indexed`, answers once search, browse, autocomplete and relationships show the write.',
      body: z.object({ proposal: proposalObject, async: asyncParam }),
      query: z.object({ async: asyncParam, wait: waitParam }),
      example: { body: { proposal: EXAMPLE_PROPOSAL } },
      handle: async ({ body, query, context }) => {
        const proposal = validateProposal(registry, body.proposal, { maxAspectBytes });
        await new TimeSlice().pause();
        const { wait, headers } = await submit([proposal], context, body.async ?? query.async, query.wait);
        return wait ? { body: { value: 'success' }, headers } : accepted(context);
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/aspects',
      action: 'ingestProposalBatch',
      family: 'restli',
      access: { kind: 'writes' },
      summary: 'Ingest several aspects; all are validated before any is published.',
      body: z.object({ proposals: z.array(proposalObject).min(1).max(options.maxBatchProposals), async: asyncParam }),
      query: z.object({ async: asyncParam, wait: waitParam }),
      example: {
        body: {
          proposals: [
            EXAMPLE_PROPOSAL,
            {
              ...EXAMPLE_PROPOSAL,
              aspectName: 'status',
              aspect: { value: '{"removed": false}', contentType: 'application/json' },
            },
          ],
        },
      },
      handle: async ({ body, query, context }) => {
        const proposals = await validateAll(body.proposals, (proposal) =>
          validateProposal(registry, proposal, { maxAspectBytes }),
        );
        const { wait, headers } = await submit(proposals, context, body.async ?? query.async, query.wait);
        return wait ? { body: { value: 'success' }, headers } : accepted(context);
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/entities',
      action: 'ingest',
      family: 'restli',
      access: { kind: 'writes' },
      summary: 'Ingest a legacy snapshot: several aspects of one entity, all or nothing (deprecated).',
      body: z.object({ entity: z.unknown(), systemMetadata: z.unknown().optional() }),
      query: z.object({ wait: waitParam }),
      example: {
        body: {
          entity: {
            value: {
              'com.linkedin.metadata.snapshot.DatasetSnapshot': {
                urn: EXAMPLE_PROPOSAL.entityUrn,
                aspects: [{ 'com.linkedin.dataset.DatasetProperties': { description: 'A sample table' } }],
              },
            },
          },
        },
      },
      handle: async ({ body, query, context }) => {
        if (body.entity === undefined) throw new ValidationError("Missing required body field 'entity'");
        const proposals = proposalsFromSnapshot(registry, body.entity, body.systemMetadata, maxAspectBytes);
        const { headers } = await submit(proposals, context, false, query.wait);
        return { headers };
      },
    }),
  ];
}

/**
 * Validates every item, reporting all problems at once with their index; nothing is returned unless all are valid.
 * The error takes the class of the first problem (a proposal over the size limit stays a 413).
 */
async function validateAll<T>(items: readonly unknown[], validate: (item: unknown) => T): Promise<T[]> {
  const problems: StrataError[] = [];
  const messages: string[] = [];
  const valid: T[] = [];
  const slice = new TimeSlice();
  for (const [index, item] of items.entries()) {
    try {
      valid.push(validate(item));
    } catch (error) {
      if (!(error instanceof StrataError)) throw error;
      problems.push(error);
      messages.push(`proposals[${index}]: ${error.message}`);
    }
    await slice.pause();
  }
  const first = problems[0];
  if (first) throw errorFromCode(first.code, messages.join('\n'));
  return valid;
}

function accepted(context: RequestContext): RouteResponse {
  return { body: { value: context.requestId } };
}

/**
 * What became of each proposal, for clients that care (DataHub's body is only "success"). A write that waited for
 * indexing also says whether the read models hold it; when one skipped a change log it can never apply, the write is
 * stored but reads will not show it, and a `Warning` header says so (the answer is still a success: retrying the same
 * write would not help).
 */
function outcomeHeaders(
  { outcomes, skippedIndexing }: SubmitResult,
  waitedForIndexing: boolean,
): Record<string, string> {
  const headers: Record<string, string> = {
    'X-Strata-Outcome': outcomes.map((outcome) => outcome.status).join(', '),
    'X-Strata-Aspect-Version': outcomes
      .map((outcome) => (outcome.version === null ? '-' : String(outcome.version)))
      .join(', '),
  };
  if (!waitedForIndexing) return headers;
  headers['X-Strata-Indexing'] = skippedIndexing.length === 0 ? 'applied' : 'skipped';
  if (skippedIndexing.length > 0) {
    const reasons = skippedIndexing.map(({ readModel, error }) => `${readModel}: ${error}`).join('; ');
    headers['Warning'] = `199 strata "The write was stored but not indexed: ${headerText(reasons)}"`;
  }
  return headers;
}

/** Text fit for a quoted header value: printable ASCII without quotes or backslashes, at most 1,000 characters. */
function headerText(text: string): string {
  const printable = text.replace(/[^\x20-\x7e]|["\\]/g, '?');
  return printable.length > 1_000 ? `${printable.slice(0, 997)}...` : printable;
}
