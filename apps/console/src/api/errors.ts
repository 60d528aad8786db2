/**
 * What went wrong with a call, in words a person can act on. Every failure the console shows goes through
 * {@link describeFailure}: a status (when the server answered), the server's own message, and what to do next.
 */

/** A failed call to Strata: the HTTP status (0 when the server could not be reached) and the server's message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** A failure as the console shows it. */
export interface Failure {
  readonly title: string;
  readonly detail: string;
  /** What the person can do about it. */
  readonly hint: string;
  readonly status: number;
}

/** Turns any error (an {@link ApiError}, a GraphQL error, a network failure) into a {@link Failure}. */
export function describeFailure(error: unknown): Failure {
  const status = statusOf(error);
  const detail = messageOf(error);
  switch (true) {
    case status === 0:
      return {
        status,
        title: 'Strata cannot be reached',
        detail,
        hint: 'Check that the server is running and that this page was opened from it, then try again.',
      };
    case status === 401:
      return { status, title: 'Sign-in needed', detail, hint: 'Your session has ended: sign in again.' };
    case status === 403:
      return {
        status,
        title: 'Not allowed',
        detail,
        hint: 'Your user lacks the privilege this needs. An administrator can grant it with a policy.',
      };
    case status === 404:
      return { status, title: 'Not found', detail, hint: 'It may have been deleted, or the link is mistyped.' };
    case status === 429 || status === 503:
      return { status, title: 'Strata is busy', detail, hint: 'Wait a moment and try again.' };
    case status >= 400 && status < 500:
      return { status, title: 'The request was refused', detail, hint: 'Correct what the message says and retry.' };
    default:
      return {
        status,
        title: 'Something failed on the server',
        detail,
        hint: "Try again; if it persists, the server's log says why (look for the request id).",
      };
  }
}

function statusOf(error: unknown): number {
  if (error instanceof ApiError) return error.status;
  if (typeof error === 'object' && error !== null) {
    const candidate = error as {
      response?: { status?: unknown };
      networkError?: unknown;
      graphQLErrors?: readonly { extensions?: { code?: unknown } }[];
    };
    const code = candidate.graphQLErrors?.[0]?.extensions?.code;
    if (typeof code === 'number') return code;
    if (typeof candidate.response?.status === 'number') return candidate.response.status;
    if (candidate.networkError !== undefined) {
      const nested = candidate.networkError as { status?: unknown } | undefined;
      return typeof nested?.status === 'number' ? nested.status : 0;
    }
  }
  return 500;
}

function messageOf(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const candidate = error as { graphQLErrors?: readonly { message: string }[]; message?: unknown };
    const first = candidate.graphQLErrors?.[0]?.message;
    if (first !== undefined) return first;
    if (typeof candidate.message === 'string') return candidate.message.replace(/^\[(Network|GraphQL)\] /, '');
  }
  return String(error);
}
