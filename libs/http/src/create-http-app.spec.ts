import { z } from 'zod';
import { collectDefaultMetrics, Counter, Registry } from 'prom-client';
import { UnauthorizedError } from '@strata/model';
import { eventually, expositionLintProblems, expositionProblems } from '@strata/testing';
import type { AccessLogger, AccessLogLevel } from './access-log';
import { createHttpApp } from './create-http-app';
import { listen, type RunningServer } from './http-server';
import { processMetrics } from './process-metrics';
import { defineRoute } from './route';

const anonymous = 'urn:li:corpuser:__anonymous';
const jdoe = 'urn:li:corpuser:jdoe';

const routes = [
  defineRoute({
    method: 'GET',
    resource: '/things',
    key: { name: 'urn', description: 'The thing.' },
    family: 'restli',
    access: { kind: 'caller' },
    summary: 'A thing.',
    handle: ({ key }) => Promise.resolve({ body: { urn: key } }),
  }),
  defineRoute({
    method: 'POST',
    resource: '/things',
    action: 'make',
    family: 'restli',
    access: { kind: 'writes' },
    summary: 'Makes a thing.',
    body: z.object({ name: z.string() }),
    handle: () => Promise.resolve({ body: { made: true } }),
  }),
  defineRoute({
    method: 'GET',
    resource: '/broken',
    family: 'restli',
    access: { kind: 'caller' },
    summary: 'Always fails.',
    handle: () => Promise.reject(new Error('a bug with internal details')),
  }),
];

interface LoggedLine {
  readonly level: string;
  readonly details: Record<string, unknown>;
  readonly message: string;
}

/** A logger keeping what it is given. */
function capturingLogger(): AccessLogger & { readonly lines: LoggedLine[]; requests(): LoggedLine[] } {
  const lines: LoggedLine[] = [];
  const at =
    (level: string) =>
    (details: object, message: string): void => {
      lines.push({ level, details: { ...details }, message });
    };
  return {
    lines,
    requests: () => lines.filter((line) => line.message === 'request'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
  };
}

async function serve(
  options: {
    accessLog?: AccessLogLevel;
    metrics?: readonly Registry[];
    logger?: ReturnType<typeof capturingLogger>;
  } = {},
): Promise<{ server: RunningServer; base: string; logger: ReturnType<typeof capturingLogger> }> {
  const logger = options.logger ?? capturingLogger();
  let clock = 0;
  const app = createHttpApp({
    routes,
    newId: () => 'request-1',
    anonymousActor: anonymous,
    authenticate: (request) => {
      const authorization = request.header('authorization');
      if (authorization === undefined) return Promise.resolve(anonymous);
      if (authorization === 'Bearer secret-token-value') return Promise.resolve(jdoe);
      return Promise.reject(new UnauthorizedError('Unauthorized to perform this action.'));
    },
    maxBodyBytes: 1024,
    logger,
    isReady: () => true,
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    ...(options.accessLog === undefined ? {} : { accessLog: { logger, level: options.accessLog } }),
    // Every reading 5 ms after the last: a request read twice (received, answered) takes 5 ms.
    monotonicNow: () => (clock += 5),
  });
  const server = await listen(app, '127.0.0.1', 0);
  return { server, base: `http://127.0.0.1:${server.port}`, logger };
}

describe('createHttpApp', () => {
  const servers: RunningServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close(0);
  });
  const started = async (options: Parameters<typeof serve>[0] = {}) => {
    const served = await serve(options);
    servers.push(served.server);
    return served;
  };

  describe('/metrics', () => {
    it('serves one valid exposition when several registries share metric names', async () => {
      const registryOf = (consumer: string) => {
        const registry = new Registry();
        new Counter({
          name: 'strata_change_log_records_applied_total',
          help: 'Change logs applied, per hook.',
          labelNames: ['consumer'],
          registers: [registry],
        }).inc({ consumer });
        return registry;
      };
      const { base } = await started({ metrics: [registryOf('search-indexer'), registryOf('audit')] });

      const response = await fetch(`${base}/metrics`);
      const text = await response.text();

      expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(expositionProblems(text)).toEqual([]);
      expect(text).toContain('strata_change_log_records_applied_total{consumer="search-indexer"} 1');
      expect(text).toContain('strata_change_log_records_applied_total{consumer="audit"} 1');
    });

    it('serves the process’s metrics and its HTTP server’s in a process without service metrics, by declared route', async () => {
      const { base } = await started();
      await fetch(`${base}/things/urn:li:thing:1?token=abc`);
      await fetch(`${base}/things/urn:li:thing:2`);
      await fetch(`${base}/no/such/path`);

      const text = await eventually(async () => {
        const scraped = await (await fetch(`${base}/metrics`)).text();
        expect(scraped).toContain('strata_http_requests_total{method="GET",route="/things/{urn}",status="200"} 2');
        return scraped;
      });

      expect(expositionProblems(text)).toEqual([]);
      // What the process adds is lint-clean too (promtool check metrics lints as well as parses).
      expect(expositionLintProblems(text)).toEqual([]);
      expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
      expect(text).toMatch(/^process_resident_memory_bytes \d/m);
      expect(text).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
      expect(text).toContain(
        'strata_http_request_duration_seconds_count{method="GET",route="/things/{urn}",status="200"} 2',
      );
      expect(text).toContain('strata_http_requests_total{method="GET",route="unmatched",status="404"} 1');
      expect(text).toMatch(/^strata_http_requests_in_flight \d/m);
      // Never the request's own path: its values are unbounded.
      expect(text).not.toContain('urn:li:thing');
      expect(text).not.toContain('/no/such/path');
    });

    it('names a Rest.li action in the route, and counts a refused request under the route it was refused on', async () => {
      const { base } = await started();
      await fetch(`${base}/things?action=make`, { method: 'POST', body: '{"name": "x"}' });
      await fetch(`${base}/things?action=make`, {
        method: 'POST',
        body: '{}',
        headers: { authorization: 'Bearer no' },
      });

      await eventually(async () => {
        const text = await (await fetch(`${base}/metrics`)).text();
        expect(text).toContain('strata_http_requests_total{method="POST",route="/things?action=make",status="200"} 1');
        // Refused before its action was chosen: the path's routes.
        expect(text).toContain('strata_http_requests_total{method="POST",route="/things",status="401"} 1');
      });
    });

    it('serves each process metric once, even when a service collects them in a registry of its own too', async () => {
      const own = new Registry();
      collectDefaultMetrics({ register: own });
      const { base, logger } = await started({ metrics: [own, processMetrics()] });

      const text = await (await fetch(`${base}/metrics`)).text();

      expect(expositionProblems(text)).toEqual([]);
      expect(text.match(/^# TYPE process_cpu_user_seconds_total /gm)).toHaveLength(1);
      expect(text.match(/^process_cpu_user_seconds_total /gm)).toHaveLength(1);
      // The registry that gives a series again is a bug of the process's composition: it is reported, once.
      expect(logger.lines.filter((line) => line.details['metric'] === 'process_cpu_user_seconds_total')).toEqual([
        expect.objectContaining({
          level: 'error',
          details: { metric: 'process_cpu_user_seconds_total', problem: 'series' },
        }),
      ]);
    });
  });

  describe('the access log', () => {
    it('logs one line per request: method, declared route, path without its query, status, duration, actor, request id, size', async () => {
      const { base, logger } = await started({ accessLog: 'info' });

      await fetch(`${base}/things/urn:li:thing:1?token=query-secret`, {
        headers: { authorization: 'Bearer secret-token-value' },
      });

      const [line] = await eventually(() => {
        expect(logger.requests()).toHaveLength(1);
        return logger.requests();
      });
      expect(line).toEqual({
        level: 'info',
        message: 'request',
        details: {
          method: 'GET',
          route: '/things/{urn}',
          path: '/things/urn:li:thing:1',
          status: 200,
          durationMs: 5,
          actor: jdoe,
          requestId: 'request-1',
          traceId: 'request-1',
          responseBytes: Buffer.byteLength(JSON.stringify({ urn: 'urn:li:thing:1' })),
        },
      });
      const logged = JSON.stringify(logger.lines);
      expect(logged).not.toContain('secret-token-value');
      expect(logged).not.toContain('query-secret');
      expect(logged).not.toContain('token=');
    });

    it('gives why a write was refused — validation, authentication — and nothing of its body or credentials', async () => {
      const { base, logger } = await started({ accessLog: 'info' });

      await fetch(`${base}/things?action=make`, {
        method: 'POST',
        body: '{"name": 42, "password": "body-secret"}',
        headers: { authorization: 'Bearer secret-token-value' },
      });
      await fetch(`${base}/things?action=make`, {
        method: 'POST',
        body: '{"name": "x"}',
        headers: { authorization: 'Bearer wrong-secret' },
      });

      const lines = await eventually(() => {
        expect(logger.requests()).toHaveLength(2);
        return logger.requests();
      });
      expect(lines.map(({ level, details }) => ({ level, ...details }))).toEqual([
        expect.objectContaining({
          level: 'info',
          method: 'POST',
          route: '/things?action=make',
          path: '/things',
          status: 400,
          actor: jdoe,
          reason: expect.stringContaining("Invalid body field 'name'") as unknown,
        }),
        expect.objectContaining({
          level: 'info',
          route: '/things',
          status: 401,
          reason: 'Unauthorized to perform this action.',
        }),
      ]);
      expect(lines[1]?.details).not.toHaveProperty('actor');
      const logged = JSON.stringify(logger.lines);
      for (const secret of ['body-secret', 'secret-token-value', 'wrong-secret']) {
        expect(logged).not.toContain(secret);
      }
    });

    it('logs an answer 5xx at error with its client message, never the error’s details', async () => {
      const { base, logger } = await started({ accessLog: 'info' });

      expect((await fetch(`${base}/broken`)).status).toBe(500);

      const [line] = await eventually(() => {
        expect(logger.requests()).toHaveLength(1);
        return logger.requests();
      });
      expect(line).toMatchObject({
        level: 'error',
        details: { route: '/broken', status: 500, reason: 'Internal server error occurred' },
      });
      expect(JSON.stringify(line)).not.toContain('internal details');
    });

    it('logs health probes and scrapes at debug, and a read’s 404 without a reason', async () => {
      const { base, logger } = await started({ accessLog: 'info' });

      await fetch(`${base}/health`);
      await fetch(`${base}/metrics`);
      await fetch(`${base}/no/such/path?x=1`);

      const lines = await eventually(() => {
        expect(logger.requests()).toHaveLength(3);
        return logger.requests();
      });
      expect(lines.map(({ level, details }) => [level, details['route'], details['status']])).toEqual([
        ['debug', '/health', 200],
        ['debug', '/metrics', 200],
        ['info', undefined, 404],
      ]);
      expect(lines[2]?.details).toMatchObject({ path: '/no/such/path' });
      expect(lines[2]?.details).not.toHaveProperty('reason');
    });

    it('logs at debug when turned down, and nothing when turned off (nor without an access log)', async () => {
      const down = await started({ accessLog: 'debug' });
      const off = await started({ accessLog: 'off' });
      const none = await started();

      // Answered before the request that is logged: their lines, if any, would be written by then.
      for (const { base } of [off, none, down]) await fetch(`${base}/things/urn:li:thing:1`);

      await eventually(() => {
        expect(down.logger.requests().map((line) => line.level)).toEqual(['debug']);
      });
      expect(off.logger.lines).toEqual([]);
      expect(none.logger.lines).toEqual([]);
    });
  });
});
