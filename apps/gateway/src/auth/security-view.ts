import { SYSTEM_ACTOR, type Policy } from '@strata/auth';
import type { RequestContext, RouteCaller } from '@strata/http';
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

/** What one request may ask of the catalog's security state: answers as of the marks it read first. */
export interface SecuritySnapshot {
  principal(actor: string, tokenUrn?: string): Promise<Principal>;
  policies(): Promise<readonly Policy[]>;
}

/** The most principals kept; past it the cache starts over (it is only ever a cache). */
const MAX_PRINCIPALS = 10_000;

const marksAnswer = z.object({ policies: z.string().nullable(), principals: z.string().nullable() });
const principalAnswer = z.object({
  actor: z.string(),
  exists: z.boolean(),
  removed: z.boolean(),
  suspended: z.boolean(),
  groups: z.array(z.string()),
  roles: z.array(z.string()),
  tokenExists: z.boolean().optional(),
});
const policiesAnswer = z.object({
  policies: z.array(z.object({ urn: z.string(), info: z.record(z.string(), z.unknown()) })),
});

interface Cached<T> {
  readonly mark: string | null;
  readonly value: Promise<T>;
}

/**
 * The gateway's view of the catalog's security state (docs/adr/0020): every request first reads the writer's security
 * marks — one small read — and then gets policies and principals from a cache whose entries are good only for the
 * marks they were loaded under. A revoked token, a suspended user or a changed policy is therefore seen by the first
 * request after the change was answered, on every gateway, while an unchanged state costs no more than the marks.
 * The reads go to the writer's `/internal/security` routes, as the system actor.
 */
export class SecurityView {
  private readonly principals = new Map<string, Cached<Principal>>();
  private policyCache: Cached<readonly Policy[]> | undefined;

  constructor(
    private readonly call: RouteCaller,
    private readonly context: RequestContext,
  ) {}

  async snapshot(): Promise<SecuritySnapshot> {
    const marks = this.parse(marksAnswer, await this.get('/internal/security/marks'));
    return {
      principal: (actor, tokenUrn) => this.principal(marks.principals, actor, tokenUrn),
      policies: () => this.policies(marks.policies),
    };
  }

  private principal(mark: string | null, actor: string, tokenUrn: string | undefined): Promise<Principal> {
    const key = `${actor}\u0000${tokenUrn ?? ''}`;
    const cached = this.principals.get(key);
    if (cached !== undefined && cached.mark === mark) return cached.value;
    if (this.principals.size >= MAX_PRINCIPALS) this.principals.clear();
    const value = this.get('/internal/security/principal', {
      actor,
      ...(tokenUrn === undefined ? {} : { token: tokenUrn }),
    }).then((body) => this.parse(principalAnswer, body));
    this.principals.set(key, { mark, value });
    value.catch(() => this.principals.delete(key)); // a failed read is not remembered
    return value;
  }

  private policies(mark: string | null): Promise<readonly Policy[]> {
    if (this.policyCache !== undefined && this.policyCache.mark === mark) return this.policyCache.value;
    const value = this.get('/internal/security/policies').then(
      (body) => this.parse(policiesAnswer, body).policies as unknown as Policy[],
    );
    const cached = { mark, value };
    this.policyCache = cached;
    value.catch(() => {
      if (this.policyCache === cached) this.policyCache = undefined;
    });
    return value;
  }

  private get(resource: string, query?: Record<string, string>): Promise<unknown> {
    return this.call({ method: 'GET', resource, ...(query === undefined ? {} : { query }) }, this.context);
  }

  private parse<T>(schema: z.ZodType<T>, body: unknown): T {
    const parsed = schema.safeParse(body);
    if (!parsed.success)
      throw new BadGatewayError('The metadata writer answered a security read in an unexpected shape');
    return parsed.data;
  }
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
