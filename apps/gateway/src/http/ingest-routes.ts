import { z } from 'zod';
import {
  BadRequestError,
  checkNestingDepth,
  errorFromCode,
  PayloadTooLargeError,
  PreconditionFailedError,
  StrataError,
  ValidationError,
  validateProposal,
  type EntityRegistry,
  type ValidatedProposal,
} from '@strata/model';
import { defineRoute, type RequestContext, type Route, type RouteResponse } from '@strata/http';
import { TimeSlice } from '@strata/timing';
import { proposalsFromSnapshot } from '../domain/snapshot-proposals';
import type { ProposalSubmitter, SubmitResult, SubmittedProposal } from '../ingest/proposal-submitter';
import { randomHex, traceparentOf, writeTraceIdOf, type RandomHex } from '../ingest/write-trace-id';

export interface IngestRoutesOptions {
  readonly registry: EntityRegistry;
  readonly submitter: ProposalSubmitter;
  /** DataHub's `ASYNC_INGEST_DEFAULT`: what `async` omitted (or "unset") means. */
  readonly asyncByDefault: boolean;
  readonly maxAspectBytes: number;
  /** Most proposals accepted by one batch request. */
  readonly maxBatchProposals: number;
  /** The clock a new trace id starts with (DataHub's trace ids begin with the time). */
  readonly now: () => number;
  /** The random halves of trace and span ids. Default: the system's random bytes. */
  readonly random?: RandomHex;
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
 * The write endpoints. A request that waits for its writes has every proposal validated in full before anything is
 * published: one invalid proposal refuses the request. An asynchronous one (`async=true`) is accepted once it is on the
 * log, as DataHub accepts it: each proposal is validated as it is applied, an invalid one refused on its own (see
 * {@link screenProposal}). Either way the answer carries the write's trace id in `traceparent`, for the trace API.
 * Validating and encoding a large aspect (a few megabytes) takes tens of milliseconds a step: the handlers give the
 * event loop a turn between steps once they have held it for a slice ({@link TimeSlice}), so that other requests are
 * not held up behind them.
 */
export function ingestRoutes(options: IngestRoutesOptions): Route[] {
  const { registry, maxAspectBytes } = options;
  const random = options.random ?? randomHex;
  const validate = (proposal: unknown) => validateProposal(registry, proposal, { maxAspectBytes });
  /** Whether a request waits for its writes (and for the indices), from `async`, `wait` and the header. */
  const modeOf = (context: RequestContext, asyncFlag: boolean | undefined, waitFor: 'indexed' | undefined) => {
    // Read-your-writes in the indices is asked for with the header or `?wait=indexed`; it implies waiting.
    const waitForIndexing = waitFor === 'indexed' || context.header(SYNC_INDEX_HEADER)?.toLowerCase() === 'true';
    return { wait: waitForIndexing || !(asyncFlag ?? options.asyncByDefault), waitForIndexing };
  };
  const submit = async (
    proposals: readonly SubmittedProposal[],
    context: RequestContext,
    mode: { readonly wait: boolean; readonly waitForIndexing: boolean },
  ) => {
    const traceId = writeTraceIdOf(context.traceId, options.now(), random);
    const result = await options.submitter.submit(proposals, {
      ...context,
      traceId,
      authorization: { kind: 'caller', context },
      ...mode,
    });
    const trace = { traceparent: traceparentOf(traceId, random) };
    return { result, headers: mode.wait ? { ...outcomeHeaders(result, mode.waitForIndexing), ...trace } : trace };
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
        'Synchronous by default: answers once the primary store holds the write. With async=true, answers as soon as the proposal is on the log, with its request id; it is validated as it is applied, and an invalid one is refused then (FailedMetadataChangeProposal_v1, the trace API). With `X-DataHub-Sync-Index-Update: true` or `wait=indexed`, answers once search, browse, autocomplete and relationships show the write. The `traceparent` header of the answer names the write for `POST /openapi/v1/trace/write/{traceId}`.',
      body: z.object({ proposal: proposalObject, async: asyncParam }),
      query: z.object({ async: asyncParam, wait: waitParam }),
      example: { body: { proposal: EXAMPLE_PROPOSAL } },
      handle: async ({ body, query, context }) => {
        const mode = modeOf(context, body.async ?? query.async, query.wait);
        const proposal = mode.wait ? validate(body.proposal) : screenProposal(body.proposal, validate);
        await new TimeSlice().pause();
        const { headers } = await submit([proposal], context, mode);
        return mode.wait ? { body: { value: 'success' }, headers } : accepted(context, headers);
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/aspects',
      action: 'ingestProposalBatch',
      family: 'restli',
      access: { kind: 'writes' },
      summary: 'Ingest several aspects, applied proposal by proposal.',
      description:
        'Synchronous by default: every proposal is validated before any is published (one invalid proposal refuses the batch), and the answer says what became of each. With async=true, the batch is accepted once it is on the log, with its request id, and each proposal is validated as it is applied: the valid ones are written, an invalid one is refused on its own (FailedMetadataChangeProposal_v1, the trace API); only what cannot go on the log refuses the batch (a proposal that is not an object, nests too deep or is over the size limit, and a write the caller may not make). The `traceparent` header of the answer names the writes for `POST /openapi/v1/trace/write/{traceId}`.',
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
        const mode = modeOf(context, body.async ?? query.async, query.wait);
        const proposals = mode.wait
          ? await validateAll(body.proposals, validate)
          : await validateAll(body.proposals, (proposal) => screenProposal(proposal, validate));
        const { headers } = await submit(proposals, context, mode);
        return mode.wait ? { body: { value: 'success' }, headers } : accepted(context, headers);
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
        const { headers } = await submit(proposals, context, modeOf(context, false, query.wait));
        return { headers };
      },
    }),
    defineRoute({
      method: 'POST',
      resource: '/entities',
      action: 'batchIngest',
      family: 'restli',
      access: { kind: 'writes' },
      summary: 'Ingest several legacy snapshots at once, all or nothing (deprecated).',
      description:
        'Each entry of `entities` is a snapshot as `ingest` takes it; `systemMetadata`, when given, holds one entry per snapshot, in the same order. Every snapshot is validated before anything is published: one invalid snapshot refuses the request, naming its index. Answers once the primary store holds every write (with `X-DataHub-Sync-Index-Update: true` or `wait=indexed`, once the read models show them).',
      body: z.object({
        entities: z.array(z.unknown()).min(1).max(options.maxBatchProposals),
        systemMetadata: z.array(z.unknown()).optional(),
      }),
      query: z.object({ wait: waitParam }),
      example: {
        body: {
          entities: [
            {
              value: {
                'com.linkedin.metadata.snapshot.DatasetSnapshot': {
                  urn: EXAMPLE_PROPOSAL.entityUrn,
                  aspects: [{ 'com.linkedin.dataset.DatasetProperties': { description: 'A sample table' } }],
                },
              },
            },
          ],
        },
      },
      handle: async ({ body, query, context }) => {
        const { entities, systemMetadata } = body;
        // DataHub's own check, status (412, its "invalid arguments") and words.
        if (systemMetadata !== undefined && systemMetadata.length !== entities.length)
          throw new PreconditionFailedError('entities and systemMetadata length must match');
        const proposals = (
          await validateAll(
            entities,
            (entity, index) => proposalsFromSnapshot(registry, entity, systemMetadata?.[index], maxAspectBytes),
            'entities',
          )
        ).flat();
        if (proposals.length > options.maxBatchProposals) {
          throw new PayloadTooLargeError(
            `A request may write at most ${options.maxBatchProposals} aspects; this one writes ${proposals.length}`,
          );
        }
        const { headers } = await submit(proposals, context, modeOf(context, false, query.wait));
        return { headers };
      },
    }),
  ];
}

/**
 * What an asynchronous ingest does with a proposal: a valid one is applied; an invalid one is put on the log anyway,
 * to be refused with its reason as it is applied (a `RefusedProposal`), as DataHub accepts an asynchronous batch and
 * validates each proposal as it applies it. Only what cannot go on the log is refused now, with the request (as
 * DataHub's request parsing refuses it): a proposal that nests arrays and objects too deep, and one over the size
 * limit. (A proposal that is not an object never gets here: the body's schema refuses it.)
 */
export function screenProposal(
  proposal: Readonly<Record<string, unknown>>,
  validate: (proposal: unknown) => ValidatedProposal,
): SubmittedProposal {
  checkNestingDepth(proposal, 'The proposal');
  try {
    return validate(proposal);
  } catch (error) {
    if (!(error instanceof StrataError) || error instanceof PayloadTooLargeError || error instanceof BadRequestError) {
      throw error;
    }
    return { refused: error, input: proposal };
  }
}

/**
 * Validates every item, reporting all problems at once with their index; nothing is returned unless all are valid.
 * The error takes the class of the first problem (a proposal over the size limit stays a 413).
 */
async function validateAll<I, T>(
  items: readonly I[],
  validate: (item: I, index: number) => T,
  label = 'proposals',
): Promise<T[]> {
  const problems: StrataError[] = [];
  const messages: string[] = [];
  const valid: T[] = [];
  const slice = new TimeSlice();
  for (const [index, item] of items.entries()) {
    try {
      valid.push(validate(item, index));
    } catch (error) {
      if (!(error instanceof StrataError)) throw error;
      problems.push(error);
      messages.push(`${label}[${index}]: ${error.message}`);
    }
    await slice.pause();
  }
  const first = problems[0];
  if (first) throw errorFromCode(first.code, messages.join('\n'));
  return valid;
}

function accepted(context: RequestContext, headers: Readonly<Record<string, string>>): RouteResponse {
  return { body: { value: context.requestId }, headers };
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
