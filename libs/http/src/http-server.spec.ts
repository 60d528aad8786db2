import type { RequestListener } from 'node:http';
import { connect } from 'node:net';
import { listen, type RunningServer } from './http-server';

/**
 * Answers 200 once it has read the whole body, so only a late request can make it fail; on `/streaming` it begins its
 * answer before the body has arrived.
 */
const readsWholeBody: RequestListener = (request, response) => {
  if (request.url === '/streaming') {
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.write('[');
  }
  request.resume();
  request.on('end', () => response.end('{}'));
};

/** Sends `bytes` and never finishes the request; resolves with everything the server wrote before it closed. */
async function sendUnfinished(port: number, bytes: string): Promise<string> {
  return await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      resolve(received);
    });
  });
}

/** The status line and the parsed JSON body of a raw HTTP/1.1 answer. */
function parseAnswer(raw: string): { statusLine: string; headers: string; body: unknown } {
  const [head = '', body = ''] = raw.split('\r\n\r\n', 2);
  const [statusLine = '', ...headers] = head.split('\r\n');
  return { statusLine, headers: headers.join('\n'), body: JSON.parse(body) };
}

describe('a request that does not arrive within the time-outs', () => {
  let server: RunningServer;

  beforeAll(async () => {
    // Low limits so the scenario runs quickly; checked often so the answer follows soon after.
    server = await listen(readsWholeBody, '127.0.0.1', 0, {
      headersTimeoutMs: 200,
      requestTimeoutMs: 400,
      checkIntervalMs: 50,
    });
  });
  afterAll(async () => {
    await server.close(0);
  });

  it('is answered 408 in the Rest.li error body when its headers never complete', async () => {
    const answer = parseAnswer(
      await sendUnfinished(server.port, 'GET /entities/urn%3Ali%3Acorpuser%3Ajdoe HTTP/1.1\r\nHost: x\r\n'),
    );

    expect(answer.statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(answer.headers).toContain('X-RestLi-Error-Response: true');
    expect(answer.body).toMatchObject({ status: 408, message: 'The request did not arrive in time' });
  });

  it("is answered 408 in its endpoint family's error body when its body never completes", async () => {
    const answer = parseAnswer(
      await sendUnfinished(
        server.port,
        'POST /openapi/v3/entity/dataset HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n[{"urn"',
      ),
    );

    expect(answer.statusLine).toBe('HTTP/1.1 408 Request Timeout');
    expect(answer.body).toEqual({ error: 'The request did not arrive in time' });
  });

  it('closes the connection without a second status line when the route had already begun its answer', async () => {
    const received = await sendUnfinished(
      server.port,
      'POST /streaming HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n[{"urn"',
    );

    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(received).not.toContain('408');
  });
});
