import { z } from 'zod';
import { UnavailableError } from '@strata/model';
import { retry, type Scheduler } from '@strata/timing';
import type { AnyRoute, JsonSchema, RouteAddress, RouteExample } from './route';
import { routeAccessSchema } from './route-access';

/** A route as another process learns it: its address and documentation, not its handler. */
export interface RouteDescriptor extends RouteAddress {
  readonly summary: string;
  readonly description?: string | undefined;
  /** The query parameters, as JSON Schema (an object schema whose properties are the parameters). */
  readonly query?: JsonSchema | undefined;
  /** The JSON body, as JSON Schema. */
  readonly body?: JsonSchema | undefined;
  readonly example?: RouteExample | undefined;
}

/** A read model a service keeps: a change-log hook serving reads, and the topics it consumes. */
export interface ReadModelDescriptor {
  readonly name: string;
  readonly topics: readonly string[];
}

/**
 * What a service tells a gateway about itself, at {@link serviceTablePath}: its name, the public routes it owns (with
 * their schemas, so the gateway documents them as fully as its own), and the read models a write waiting for
 * indexing waits for.
 */
export interface ServiceTable {
  readonly service: string;
  readonly routes: readonly RouteDescriptor[];
  readonly readModels: readonly ReadModelDescriptor[];
}

/** Where every service run alone serves its {@link ServiceTable}; for the deployment's network, never forwarded. */
export const serviceTablePath = '/internal/service';

const documented = new WeakMap<AnyRoute, RouteDescriptor>();

/** The descriptor of a route: address, summary, and its inputs' schemas as JSON Schema (computed once per route). */
export function describeRoute(route: AnyRoute): RouteDescriptor {
  const known = documented.get(route);
  if (known !== undefined) return known;
  const { method, resource, key, action, family, access, summary, description, example } = route;
  const descriptor: RouteDescriptor = {
    method,
    resource,
    key,
    action,
    family,
    access,
    summary,
    ...(description === undefined ? {} : { description }),
    ...(example === undefined ? {} : { example }),
    ...(route.kind === 'local'
      ? {
          ...(route.querySchema === undefined ? {} : { query: jsonSchemaOf(route.querySchema) }),
          ...(route.bodySchema === undefined ? {} : { body: jsonSchemaOf(route.bodySchema) }),
        }
      : {
          ...(route.query === undefined ? {} : { query: route.query }),
          ...(route.body === undefined ? {} : { body: route.body }),
        }),
  };
  documented.set(route, descriptor);
  return descriptor;
}

/** A zod schema's accepted input as JSON Schema (2020-12), without the `$schema` marker. */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const { $schema: _marker, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return rest;
}

/** The table a service serves about itself. */
export function describeService(
  service: string,
  routes: readonly AnyRoute[],
  readModels: readonly ReadModelDescriptor[],
): ServiceTable {
  return {
    service,
    routes: routes.map(describeRoute),
    readModels: readModels.map(({ name, topics }) => ({ name, topics })),
  };
}

const address = {
  method: z.enum(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']),
  resource: z.string().startsWith('/'),
  key: z.object({ name: z.string().min(1), description: z.string() }).optional(),
  action: z.string().min(1).optional(),
  family: z.enum(['restli', 'openapi', 'schema-registry', 'graphql']),
  // A service of a version that does not declare who may call its routes is refused: its routes would be unguarded.
  access: routeAccessSchema,
};

const serviceTableSchema = z.object({
  service: z.string().min(1),
  routes: z.array(
    z.object({
      ...address,
      summary: z.string(),
      description: z.string().optional(),
      query: z.record(z.string(), z.unknown()).optional(),
      body: z.record(z.string(), z.unknown()).optional(),
      example: z
        .object({ query: z.record(z.string(), z.string()).optional(), body: z.unknown().optional() })
        .optional(),
    }),
  ),
  readModels: z.array(z.object({ name: z.string().min(1), topics: z.array(z.string().min(1)) })),
});

/**
 * Reads a service's table, retrying while the service starts (refused connection, an answer other than 200) until
 * `timeoutMs`, then rejecting with `UnavailableError`. A table that does not have the expected shape is refused at
 * once: the service is of another version.
 */
export async function fetchServiceTable(
  baseUrl: string,
  options: {
    readonly timeoutMs: number;
    readonly scheduler: Scheduler;
    /** The `Authorization` the service answers: the system client's. */
    readonly authorization: string;
    readonly signal?: AbortSignal;
  },
): Promise<ServiceTable> {
  const url = `${baseUrl.replace(/\/+$/, '')}${serviceTablePath}`;
  let text: string;
  try {
    text = await retry(
      async () => {
        const response = await fetch(url, {
          headers: { authorization: options.authorization },
          signal: AbortSignal.timeout(5_000),
        });
        if (response.status === 401) throw new RefusedCredentialsError(url);
        if (response.status !== 200) throw new Error(`${url} answered HTTP ${response.status}`);
        return response.text();
      },
      {
        scheduler: options.scheduler,
        retryable: (error) => !(error instanceof RefusedCredentialsError),
        backoff: { initialMs: 250, maxMs: 250, factor: 1 },
        timeoutMs: options.timeoutMs,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
    );
  } catch (error) {
    if (error instanceof RefusedCredentialsError) throw error;
    throw new UnavailableError(`Could not read the service table of ${baseUrl} within ${options.timeoutMs} ms`, {
      cause: error,
    });
  }
  const parsed = serviceTableSchema.safeParse(safeJson(text));
  if (!parsed.success) {
    throw new UnavailableError(
      `${url} is not a Strata service table (${parsed.error.issues[0]?.message ?? 'unexpected shape'})`,
    );
  }
  return parsed.data as ServiceTable;
}

/** A service that refuses the system client: the deployment's processes were not given the same secret. */
class RefusedCredentialsError extends Error {
  constructor(url: string) {
    super(
      `${url} refused the system client's credentials: every process of a deployment needs the same DATAHUB_SYSTEM_CLIENT_ID and DATAHUB_SYSTEM_CLIENT_SECRET`,
    );
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
