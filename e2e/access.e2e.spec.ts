/**
 * Who may call what, walked route by route on the running deployments. Every public route declares its access; the
 * OpenAPI document carries each declaration (`x-strata-access`), and this suite calls every route of the document
 * without credentials, with credentials that do not verify, and as a plain user — each with a body that does not even
 * parse — and checks the answer is what the declaration says, before anything about the request is looked at:
 * a 401 for a caller without the credentials the route needs (authentication on: every route but the open ones;
 * off: those checked always), a 401 for credentials that do not verify (on or off) except on open routes, a 403 for
 * a plain user on a route that needs a privilege always. And behind the gateway, no service answers anyone but the
 * system client: every route of every service's table is refused to the anonymous caller and to a user's token.
 */
import { TokenService } from '@strata/auth';
import {
  proposalOf,
  sharedDeployment,
  TestHttpClient,
  type SharedDeployment,
  type SharedDeploymentName,
} from '@strata/testing';

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly access: { readonly kind: string; readonly always?: boolean };
}

/** A path of the document made into a URL: a URN for the entity key, a plain word for other path parameters. */
function urlOf(path: string): string {
  return path.replace('{urn}', encodeURIComponent('urn:li:corpuser:access_walk')).replace(/\{[A-Za-z0-9_]+\}/g, 'walk');
}

/** A body no route takes: a caller refused for who it is must hear that, not what is wrong with its body. */
const GARBAGE = '{"not json';

/** The garbage body of a request of `method`: none for GET and HEAD, which carry none. */
const garbageFor = (method: string) => (method === 'GET' || method === 'HEAD' ? undefined : GARBAGE);

describe.each(['standalone', 'standalone-auth', 'distributed'] as const satisfies readonly SharedDeploymentName[])(
  '%s',
  (name) => {
    let deployment: SharedDeployment;
    let http: TestHttpClient;
    let operations: Operation[];
    let plainUser: Record<string, string>;

    const call = (operation: Operation, headers: Record<string, string>) =>
      http.send(operation.method, urlOf(operation.path), garbageFor(operation.method), {
        'Content-Type': 'application/json',
        ...headers,
      });

    beforeAll(async () => {
      deployment = await sharedDeployment(name);
      http = new TestHttpClient(deployment.baseUrl);
      const document = (await http.get('/openapi/v3/api-docs')).json as {
        paths: Record<string, Record<string, { 'x-strata-access': Operation['access'] }>>;
      };
      operations = Object.entries(document.paths).flatMap(([path, item]) =>
        Object.entries(item).map(([method, operation]) => ({
          method: method.toUpperCase(),
          path,
          access: operation['x-strata-access'],
        })),
      );
      const tokens = new TokenService({ signingKey: deployment.signingKey, now: Date.now });
      const bearer = async (actor: string) => ({
        Authorization: `Bearer ${(await tokens.mint(actor, 'SESSION', 3_600_000)).token}`,
      });
      const plain = `access_walk_${Date.now()}`;
      const created = await http.post(
        '/aspects?action=ingestProposal',
        { proposal: proposalOf(`urn:li:corpuser:${plain}`, 'corpUserInfo', { active: true }) },
        await bearer('datahub'),
      );
      expect(created.status).toBe(200);
      plainUser = await bearer(plain);
    }, 120_000);

    it('documents every route with its access declaration', () => {
      expect(operations.length).toBeGreaterThan(50);
      const undeclared = operations.filter(
        (operation) => typeof (operation.access as Operation['access'] | undefined)?.kind !== 'string',
      );
      expect(undeclared).toEqual([]);
    });

    it('refuses an anonymous caller with 401 wherever the declaration wants credentials, whatever the body', async () => {
      const wrong: string[] = [];
      for (const operation of operations) {
        const { status } = await call(operation, {});
        const needsCredentials =
          operation.access.kind !== 'open' && (deployment.authentication || operation.access.always === true);
        if (status >= 500 || (status === 401) !== needsCredentials) {
          wrong.push(`${operation.method} ${operation.path} (${operation.access.kind}): ${status}`);
        }
      }
      expect(wrong).toEqual([]);
    });

    it('refuses credentials that do not verify with 401 on every route but the open ones, authentication on or off', async () => {
      const wrong: string[] = [];
      for (const operation of operations) {
        const { status } = await call(operation, { Authorization: 'Bearer not.a.token' });
        if (status >= 500 || (status === 401) !== (operation.access.kind !== 'open')) {
          wrong.push(`${operation.method} ${operation.path} (${operation.access.kind}): ${status}`);
        }
      }
      expect(wrong).toEqual([]);
    });

    it('refuses a plain user with 403 on the routes that need a privilege always, before reading the body', async () => {
      const wrong: string[] = [];
      for (const operation of operations.filter((each) => each.access.kind === 'privilege' && each.access.always)) {
        // Making one's own token needs only what every user holds by default: it gets to the body, and refuses that.
        const expected = operation.path === '/openapi/v1/tokens' && operation.method === 'POST' ? 400 : 403;
        const { status } = await call(operation, plainUser);
        if (status !== expected) wrong.push(`${operation.method} ${operation.path}: ${status}, not ${expected}`);
      }
      expect(wrong).toEqual([]);
    });

    if (name === 'distributed') {
      it('leaves no way around the gateway: every route of every service behind it serves the system client only', async () => {
        const system = { Authorization: `Basic __datahub_system:${deployment.systemClientSecret}` };
        const services = Object.entries(deployment.processes).filter(([service]) => service !== 'gateway');
        expect(services.map(([service]) => service).sort()).toEqual(
          ['audit', 'metadata-writer', 'operations', 'search-indexer', 'timeseries-indexer'].sort(),
        );
        const wrong: string[] = [];
        for (const [service, process] of services) {
          const direct = new TestHttpClient(process.baseUrl);
          expect((await direct.get('/internal/service')).status).toBe(401);
          const table = (await direct.get('/internal/service', system)).json as {
            routes: { method: string; resource: string; key?: unknown; action?: string; access: { kind: string } }[];
          };
          expect(table.routes.length).toBeGreaterThan(0);
          for (const route of table.routes) {
            const path = `${urlOf(route.resource.replace(/:([A-Za-z0-9_]+)/g, '{$1}'))}${route.key ? `/${encodeURIComponent('urn:li:corpuser:x')}` : ''}${route.action ? `?action=${route.action}` : ''}`;
            for (const headers of [{}, plainUser, { Authorization: `Basic __datahub_system:not-the-secret` }]) {
              const { status } = await direct.send(route.method, path, garbageFor(route.method), {
                'Content-Type': 'application/json',
                ...headers,
              });
              if (status !== 401) wrong.push(`${service}: ${route.method} ${path}: ${status}`);
            }
          }
          expect((await direct.get('/health')).status).toBe(200);
        }
        expect(wrong).toEqual([]);
      });
    }
  },
);
