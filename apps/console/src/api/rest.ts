import { ApiError } from './errors';

/**
 * Calls one of Strata's REST routes from the console, with the session cookie, and answers its JSON body; a refusal
 * becomes an {@link ApiError} carrying the status and the message of the route's error body, whichever family
 * (Rest.li `{message}`, OpenAPI `{error}` or `{message}`).
 */
export async function restJson<T>(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: {
        Accept: 'application/json',
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    throw new ApiError(0, error instanceof Error ? error.message : String(error));
  }
  const text = await response.text();
  const parsed = parseJson(text);
  if (!response.ok) throw new ApiError(response.status, errorMessageOf(parsed) ?? (text || response.statusText));
  return parsed as T;
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The message of an error body of any of Strata's families. */
export function errorMessageOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  for (const key of ['message', 'error', 'exceptionClass']) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  const errors = record.errors;
  if (Array.isArray(errors) && typeof (errors[0] as { message?: unknown } | undefined)?.message === 'string') {
    return (errors[0] as { message: string }).message;
  }
  return undefined;
}
