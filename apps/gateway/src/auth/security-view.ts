import { PRINCIPAL_READS, SecurityMark, SYSTEM_ACTOR, type PasswordCredentials, type Policy } from '@strata/auth';
import type { RequestContext, RouteCall, RouteCaller } from '@strata/http';
import { BadGatewayError } from '@strata/model';
import { z } from 'zod';

/** What a user is, as authentication and policies need it. */
export interface Principal {
  readonly actor: string;
  readonly exists: boolean;
  readonly removed: boolean;
  readonly suspended: boolean;
  readonly groups: readonly string[];
  readonly roles: readonly string[];
  /** Whether the stored access token asked about exists (absent when none was asked about). */
  readonly tokenExists?: boolean;
}

/** A stored (personal) access token's metadata: its `dataHubAccessTokenInfo`, with its id. */
export interface StoredToken {
  readonly id: string;
  readonly name: string;
  readonly actorUrn: string;
  readonly ownerUrn: string;
  readonly createdAt: number;
  readonly expiresAt?: number | undefined;
  readonly description?: string | undefined;
}

const SNAPSHOT = Symbol('security snapshot');

/** What one request may ask of the catalog's security state: answers as of the marks it read first. */
export interface SecuritySnapshot {
  readonly [SNAPSHOT]?: true;
  principal(actor: string, tokenUrn?: string): Promise<Principal>;
  policies(): Promise<readonly Policy[]>;
}

/** The most principals kept; past it the cache starts over (it is only ever a cache). */
const MAX_PRINCIPALS = 10_000;
/** The most entities one read of the writer names. */
const NAMED_PER_READ = 1_000;
/** The aspect a stored token's metadata is kept in, and the entity type. */
const TOKEN_INFO = 'dataHubAccessTokenInfo';
const TOKEN_PREFIX = 'urn:li:dataHubAccessToken:';
const TOKEN_KEY = 'dataHubAccessTokenKey';

const marksAnswer = z.object({ marks: z.record(z.string(), z.string().nullable()) });
const entitiesAnswer = z.object({
  entities: z.array(
    z.object({ urn: z.string(), aspects: z.record(z.string(), z.object({ value: z.unknown() }).loose()) }),
  ),
});
const listedAnswer = z.object({
  values: z.array(z.object({ urn: z.string(), value: z.record(z.string(), z.unknown()) })),
});
const tokenInfo = z
  .object({
    name: z.string(),
    actorUrn: z.string(),
    ownerUrn: z.string(),
    createdAt: z.number(),
    expiresAt: z.number().optional(),
    description: z.string().optional(),
  })
  .loose();
const credentials = z.object({ salt: z.string(), hashedPassword: z.string() }).loose();

interface Cached<T> {
  readonly mark: string | null;
  readonly value: Promise<T>;
}

/**
 * The gateway's view of the catalog's security state (docs/adr/0020), and the one place the gateway reads it: users'
 * existence, status, groups and roles, groups' roles, policies, stored tokens and password hashes — each a security
 * input of `@strata/auth`, whose writes are guarded (a test records every read made here and holds it to that list).
 *
 * Every request that needs it first reads the writer's security marks — one small read, at most once per request —
 * and then gets policies and principals from a cache whose entries are good only for the marks they were loaded
 * under. A revoked token, a suspended user or a changed policy is therefore seen by the first request after the
 * change was answered, on every gateway, while an unchanged state costs no more than the marks. Tokens and password
 * hashes are read afresh each time. The reads go to the writer's generic `/internal` reads, as the system actor.
 */
export class SecurityView {
  private readonly principals = new Map<string, Cached<Principal>>();
  private policyCache: Cached<readonly Policy[]> | undefined;
  /** The snapshot of each request that asked for one and was not authenticated with one (`RequestContext.session`). */
  private readonly ofRequest = new WeakMap<RequestContext, Promise<SecuritySnapshot>>();

  constructor(
    private readonly call: RouteCaller,
    private readonly context: RequestContext,
  ) {}

  /**
   * The security state as one request sees it: read at most once per request — by authentication, when the request
   * presented credentials, or else by its first check — however many checks the request needs.
   */
  snapshotFor(context: RequestContext): Promise<SecuritySnapshot> {
    if (isSnapshot(context.session)) return Promise.resolve(context.session);
    let snapshot = this.ofRequest.get(context);
    if (snapshot === undefined) {
      snapshot = this.snapshot();
      this.ofRequest.set(context, snapshot);
      snapshot.catch(() => this.ofRequest.delete(context));
    }
    return snapshot;
  }

  /** A fresh snapshot: the marks read now. */
  async snapshot(): Promise<SecuritySnapshot> {
    const answer = this.parse(
      marksAnswer,
      await this.read({
        method: 'GET',
        resource: '/internal/marks',
        query: { name: [SecurityMark.policies, SecurityMark.principals] },
      }),
    );
    const policies = answer.marks[SecurityMark.policies] ?? null;
    const principals = answer.marks[SecurityMark.principals] ?? null;
    return {
      [SNAPSHOT]: true,
      principal: (actor, tokenUrn) => this.principal(principals, actor, tokenUrn),
      policies: () => this.policies(policies),
    };
  }

  /** A native user's password hash, null when none was ever set. */
  async credentials(actor: string): Promise<PasswordCredentials | null> {
    const [user] = await this.entities([actor], ['corpUserCredentials']);
    const parsed = credentials.safeParse(user?.aspects['corpUserCredentials']?.value);
    return parsed.success ? { salt: parsed.data.salt, hashedPassword: parsed.data.hashedPassword } : null;
  }

  /** Stored access tokens: one by id, or every one. */
  async tokens(id?: string): Promise<StoredToken[]> {
    const values =
      id === undefined
        ? this.parse(
            listedAnswer,
            await this.read({ method: 'GET', resource: '/internal/listed', query: { aspect: TOKEN_INFO } }),
          ).values
        : (await this.entities([`${TOKEN_PREFIX}${id}`], [TOKEN_INFO])).map((entity) => ({
            urn: entity.urn,
            value: entity.aspects[TOKEN_INFO]?.value,
          }));
    return values.flatMap(({ urn, value }) => {
      const info = tokenInfo.safeParse(value);
      if (!info.success) return [];
      const { name, actorUrn, ownerUrn, createdAt, expiresAt, description } = info.data;
      return [{ id: urn.slice(TOKEN_PREFIX.length), name, actorUrn, ownerUrn, createdAt, expiresAt, description }];
    });
  }

  private principal(mark: string | null, actor: string, tokenUrn: string | undefined): Promise<Principal> {
    const key = `${actor}\u0000${tokenUrn ?? ''}`;
    const cached = this.principals.get(key);
    if (cached !== undefined && cached.mark === mark) return cached.value;
    if (this.principals.size >= MAX_PRINCIPALS) this.principals.clear();
    const value = this.readPrincipal(actor, tokenUrn);
    this.principals.set(key, { mark, value });
    value.catch(() => this.principals.delete(key)); // a failed read is not remembered
    return value;
  }

  private async readPrincipal(actor: string, tokenUrn: string | undefined): Promise<Principal> {
    const [found, token] = await Promise.all([
      this.entities([actor], PRINCIPAL_READS.user),
      tokenUrn === undefined ? undefined : this.entities([tokenUrn], [TOKEN_KEY]),
    ]);
    const user = found[0]?.aspects ?? {};
    const value = (aspect: string) => objectOf(user[aspect]?.value);
    const groups = [
      ...new Set([
        ...strings(value('groupMembership')['groups']),
        ...strings(value('nativeGroupMembership')['nativeGroups']),
      ]),
    ];
    const roles = new Set(strings(value('roleMembership')['roles']));
    for (const group of await this.entities(groups, PRINCIPAL_READS.group)) {
      for (const role of strings(objectOf(group.aspects['roleMembership']?.value)['roles'])) roles.add(role);
    }
    return {
      actor,
      exists: user['corpUserKey'] !== undefined,
      removed: value('status')['removed'] === true,
      suspended: value('corpUserStatus')['status'] === 'SUSPENDED',
      groups,
      roles: [...roles],
      ...(token === undefined ? {} : { tokenExists: token.length > 0 }),
    };
  }

  private policies(mark: string | null): Promise<readonly Policy[]> {
    if (this.policyCache !== undefined && this.policyCache.mark === mark) return this.policyCache.value;
    const value = this.read({
      method: 'GET',
      resource: '/internal/listed',
      query: { aspect: 'dataHubPolicyInfo' },
    }).then((body) =>
      this.parse(listedAnswer, body).values.map(({ urn, value: info }) => ({ urn, info }) as unknown as Policy),
    );
    const cached = { mark, value };
    this.policyCache = cached;
    value.catch(() => {
      if (this.policyCache === cached) this.policyCache = undefined;
    });
    return value;
  }

  /** The named entities' latest values of `aspects` (entities with none of them are absent), a page at a time. */
  private async entities(urns: readonly string[], aspects: readonly string[]) {
    const found: z.infer<typeof entitiesAnswer>['entities'] = [];
    for (let start = 0; start < urns.length; start += NAMED_PER_READ) {
      const body = await this.read({
        method: 'POST',
        resource: '/internal/entities/latest',
        body: { urns: urns.slice(start, start + NAMED_PER_READ), aspects },
      });
      found.push(...this.parse(entitiesAnswer, body).entities);
    }
    return found;
  }

  private read(call: RouteCall): Promise<unknown> {
    return this.call(call, this.context);
  }

  private parse<T>(schema: z.ZodType<T>, body: unknown): T {
    const parsed = schema.safeParse(body);
    if (!parsed.success)
      throw new BadGatewayError('The metadata writer answered a security read in an unexpected shape');
    return parsed.data;
  }
}

function isSnapshot(value: unknown): value is SecuritySnapshot {
  return typeof value === 'object' && value !== null && SNAPSHOT in value;
}

function objectOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** The context of the gateway's own reads: the system actor, with the system client's credentials. */
export function systemContext(clientId: string, secret: string): RequestContext {
  const authorization = `Basic ${clientId}:${secret}`;
  return {
    requestId: 'gateway-security',
    traceId: 'gateway-security',
    actor: SYSTEM_ACTOR,
    sourceIp: undefined,
    userAgent: 'strata-gateway',
    eventSource: 'RESTLI',
    url: '/internal/security',
    header: (name) => (name.toLowerCase() === 'authorization' ? authorization : undefined),
  };
}
