import type { RequestContext, Route } from '@strata/http';
import { PayloadTooLargeError, ValidationError } from '@strata/model';
import { testEntityRegistry } from '@strata/model/testing';
import type { ProposalSubmitter, Submission, SubmittedProposal } from '../ingest/proposal-submitter';
import { ingestRoutes } from './ingest-routes';

const registry = testEntityRegistry();
const NOW = 1_700_000_000_000;

const valid = (name: string) => ({
  entityType: 'dataset',
  entityUrn: `urn:li:dataset:(urn:li:dataPlatform:hive,${name},PROD)`,
  changeType: 'UPSERT',
  aspectName: 'status',
  aspect: { value: '{"removed": false}', contentType: 'application/json' },
});
const unknownAspect = { ...valid('bad'), aspectName: 'noSuchAspect' };

function contextOf(traceId = 'a-request-id'): RequestContext {
  return {
    requestId: 'request-1',
    traceId,
    actor: 'urn:li:corpuser:jdoe',
    sourceIp: undefined,
    userAgent: undefined,
    eventSource: 'RESTLI',
    url: '/aspects',
    header: () => undefined,
  };
}

/** The routes on a submitter that keeps what it is given and answers every write applied. */
function routesWithSubmitter(): {
  routes: Route[];
  submitted: { proposals: SubmittedProposal[]; submission: Submission }[];
} {
  const submitted: { proposals: SubmittedProposal[]; submission: Submission }[] = [];
  const submitter = {
    submit: (proposals: readonly SubmittedProposal[], submission: Submission) => {
      submitted.push({ proposals: [...proposals], submission });
      return Promise.resolve({ outcomes: [], proposalIds: [], skippedIndexing: [] });
    },
  } as unknown as ProposalSubmitter;
  const routes = ingestRoutes({
    registry,
    submitter,
    asyncByDefault: false,
    maxAspectBytes: 1_000,
    maxBatchProposals: 100,
    now: () => NOW,
    random: (bytes) => 'c'.repeat(bytes * 2),
  });
  return { routes, submitted };
}

function invoke(routes: Route[], action: string, body: unknown, context = contextOf()) {
  const route = routes.find((candidate) => candidate.action === action);
  if (route === undefined) throw new Error(`no route for ${action}`);
  return route.invoke({ query: {}, body, key: undefined, params: {}, context });
}

describe('ingestProposalBatch', () => {
  it('asynchronous: accepts a batch with an invalid proposal, which goes on the log to be refused in its place', async () => {
    const { routes, submitted } = routesWithSubmitter();
    const answer = await invoke(routes, 'ingestProposalBatch', {
      proposals: [valid('a'), unknownAspect, valid('b')],
      async: 'true',
    });

    expect(answer.body).toEqual({ value: 'request-1' });
    const [{ proposals, submission }] = submitted as [(typeof submitted)[number]];
    expect(proposals).toHaveLength(3);
    expect(proposals[1]).toEqual({
      refused: new ValidationError('Unknown aspect noSuchAspect for entity dataset'),
      input: unknownAspect,
    });
    expect(proposals[0]).toMatchObject({ aspect: { name: 'status' } });
    expect(submission).toMatchObject({ wait: false, waitForIndexing: false });
    // The answer names the trace the writes are recorded under.
    expect(answer.headers).toEqual({ traceparent: `00-${submission.traceId}-${'c'.repeat(16)}-01` });
    expect(submission.traceId).toMatch(/^[0-9a-f]{32}$/);
  });

  it('asynchronous: still refuses, with the request, what cannot go on the log: an aspect over the size limit', async () => {
    const { routes, submitted } = routesWithSubmitter();
    const large = {
      ...valid('large'),
      aspectName: 'datasetProperties',
      aspect: { value: JSON.stringify({ description: 'x'.repeat(2_000) }), contentType: 'application/json' },
    };
    await expect(
      invoke(routes, 'ingestProposalBatch', { proposals: [valid('a'), large], async: 'true' }),
    ).rejects.toThrow(PayloadTooLargeError);
    expect(submitted).toEqual([]);
  });

  it('synchronous: refuses the whole batch for one invalid proposal, publishing nothing', async () => {
    const { routes, submitted } = routesWithSubmitter();
    await expect(
      invoke(routes, 'ingestProposalBatch', { proposals: [valid('a'), unknownAspect], async: 'false' }),
    ).rejects.toThrow('proposals[1]: Unknown aspect noSuchAspect for entity dataset');
    expect(submitted).toEqual([]);
  });

  it('keeps the client’s trace id (its traceparent) and answers with it', async () => {
    const { routes, submitted } = routesWithSubmitter();
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const answer = await invoke(routes, 'ingestProposalBatch', { proposals: [valid('a')] }, contextOf(traceId));
    expect(submitted[0]?.submission.traceId).toBe(traceId);
    expect(answer.headers?.['traceparent']).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    expect(answer.body).toEqual({ value: 'success' });
  });
});

describe('ingestProposal', () => {
  it('asynchronous: accepts an invalid proposal, to be refused as it is applied', async () => {
    const { routes, submitted } = routesWithSubmitter();
    const answer = await invoke(routes, 'ingestProposal', { proposal: unknownAspect, async: 'true' });
    expect(answer.body).toEqual({ value: 'request-1' });
    expect(submitted[0]?.proposals).toEqual([
      { refused: new ValidationError('Unknown aspect noSuchAspect for entity dataset'), input: unknownAspect },
    ]);
  });

  it('synchronous: refuses an invalid proposal at once', async () => {
    const { routes, submitted } = routesWithSubmitter();
    await expect(invoke(routes, 'ingestProposal', { proposal: unknownAspect })).rejects.toThrow(ValidationError);
    expect(submitted).toEqual([]);
  });
});
