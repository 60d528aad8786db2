/**
 * A stand-in Elasticsearch cluster for the adapters' offline specs: every request the client sends is recorded and
 * answered by the test. It has no search semantics, so the specs check the exact requests, and how answers are read.
 */
import { Client, errors, type DiagnosticResult } from '@elastic/elasticsearch';
import Mock from '@elastic/elasticsearch-mock';

/** A request body as the mock parsed it: JSON, read freely by the assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- untyped JSON that the tests walk into
export type Body = any;

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly querystring: Record<string, string>;
  readonly body: Body;
}

export type Responder = (request: RecordedRequest) => unknown;

/** A client whose every request is recorded and answered by `respond`. */
export function mockCluster(respond: Responder): { client: Client; requests: RecordedRequest[] } {
  const mock = new Mock();
  const requests: RecordedRequest[] = [];
  mock.add({ method: ['GET', 'POST', 'PUT', 'DELETE', 'HEAD'], path: '/*' }, (params) => {
    const request = params as unknown as RecordedRequest;
    requests.push(request);
    return respond(request) as Record<string, unknown>;
  });
  const client = new Client({ node: 'http://localhost:9200', Connection: mock.getConnection() });
  return { client, requests };
}

/** An error answer of the cluster, as the client raises it. */
export function responseError(statusCode: number, body: unknown): errors.ResponseError {
  return new errors.ResponseError({ body, statusCode, headers: {}, warnings: null } as unknown as DiagnosticResult);
}
