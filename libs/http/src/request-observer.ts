import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { logAccess, type AccessLogOptions } from './access-log';
import { toClientError } from './errors';
import { UNMATCHED_ROUTE, type HttpMetrics } from './http-metrics';
import { declaredRouteOf } from './mount-routes';
import type { RequestContext } from './route';

export interface RequestObserverOptions {
  readonly metrics: HttpMetrics;
  /** Absent: requests are measured, not logged. */
  readonly accessLog?: AccessLogOptions;
  /** A monotonic clock in milliseconds, for durations. */
  readonly monotonicNow: () => number;
  /** Declared routes of probes and scrapes (`/health`, `/metrics`), logged at debug whatever they answer. */
  readonly quietRoutes: readonly string[];
}

/**
 * Status recorded for a request whose client went away before its answer was sent (nginx's "client closed request"),
 * so that it is not counted as the 200 Node assumes until a status is set.
 */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * Watches every request a process answers, once it is answered: counts and times it ({@link HttpMetrics}) and writes
 * its access-log line. Its parts go in the app at three places: {@link observe} first (before the path is rewritten),
 * {@link identified} when the request's context is built (the actor, the request id), {@link recordError} just before
 * the error handler (the message the answer carries).
 */
export class RequestObserver {
  private readonly contexts = new WeakMap<Request, RequestContext>();
  private readonly errors = new WeakMap<Request, string>();
  private readonly quietRoutes: ReadonlySet<string>;

  constructor(private readonly options: RequestObserverOptions) {
    this.quietRoutes = new Set(options.quietRoutes);
  }

  /** The first middleware: notes when and how the request came, and reports it once its answer is sent. */
  readonly observe: RequestHandler = (request, response, next) => {
    const started = this.options.monotonicNow();
    // The path as the client sent it (before the frontend prefix is cut), without the query string.
    const path = request.path;
    const method = request.method;
    this.options.metrics.started();
    let reported = false;
    const report = (aborted: boolean) => {
      if (reported) return;
      reported = true;
      this.report(request, response, { method, path, started, aborted });
    };
    response.once('finish', () => {
      report(false);
    });
    // Also after `finish`; alone when the connection closed first.
    response.once('close', () => {
      report(true);
    });
    next();
  };

  /** Notes who a request acts as, once its context is built. */
  identified(request: Request, context: RequestContext): void {
    this.contexts.set(request, context);
  }

  /** Notes the message of the error a request is answered with, and hands the error on to the error handler. */
  readonly recordError: ErrorRequestHandler = (error, request, _response, next) => {
    this.errors.set(request, toClientError(error).message);
    next(error);
  };

  private report(
    request: Request,
    response: Response,
    at: { method: string; path: string; started: number; aborted: boolean },
  ): void {
    const durationMs = Math.max(0, this.options.monotonicNow() - at.started);
    const status = at.aborted && !response.headersSent ? CLIENT_CLOSED_REQUEST : response.statusCode;
    const route = declaredRouteOf(response);
    this.options.metrics.finished({
      method: at.method,
      route: route ?? UNMATCHED_ROUTE,
      status,
      seconds: durationMs / 1000,
    });
    const accessLog = this.options.accessLog;
    if (accessLog === undefined) return;
    const context = this.contexts.get(request);
    logAccess(accessLog, {
      method: at.method,
      route,
      path: at.path,
      status,
      durationMs: Math.round(durationMs * 10) / 10,
      actor: context?.actor,
      requestId: context?.requestId,
      traceId: context?.traceId,
      responseBytes: contentLengthOf(response),
      error: this.errors.get(request),
      aborted: at.aborted,
      quiet: route !== undefined && this.quietRoutes.has(route),
    });
  }
}

function contentLengthOf(response: Response): number | undefined {
  const header = response.getHeader('Content-Length');
  const length = typeof header === 'string' ? Number(header) : header;
  return typeof length === 'number' && Number.isSafeInteger(length) && length >= 0 ? length : undefined;
}
