import { encodeUsageEvent, originHeaders, type TopicNames } from '@strata/events';
import type { RequestContext } from '@strata/http';
import type { MessageLog } from '@strata/log';
import { UnavailableError } from '@strata/model';
import type { LoginAttempt } from '../http/login-routes';

/** DataHub's stored `loginSource` of a login with a native user's password. */
const PASSWORD_LOGIN = 'passwordLogin';

/**
 * Records logins for the audit trail: each attempt, kept or refused, becomes a `LogInEvent` or `FailedLogInEvent` on
 * `DataHubUsageEvent_v1` (keyed by actor), with the request's origin and, for a refusal, its reason — never the
 * password. The login is answered only once the log holds its event; a log out of reach fails it with 503.
 */
export function loginRecorder(
  log: MessageLog,
  topics: Pick<TopicNames, 'dataHubUsageEvent'>,
  now: () => number,
): (attempt: LoginAttempt, context: RequestContext) => Promise<void> {
  return async (attempt, context) => {
    const event = {
      type: attempt.succeeded ? ('LogInEvent' as const) : ('FailedLogInEvent' as const),
      timestamp: now(),
      actorUrn: attempt.actor,
      loginSource: PASSWORD_LOGIN,
      ...(attempt.reason === undefined ? {} : { loginDenialReason: attempt.reason }),
      eventSource: context.eventSource,
      ...(context.userAgent === undefined ? {} : { userAgent: context.userAgent.slice(0, 512) }),
      ...(context.sourceIp === undefined ? {} : { sourceIP: context.sourceIp }),
      traceId: context.traceId,
      usageSource: 'backend' as const,
    };
    try {
      await log.publish([
        {
          topic: topics.dataHubUsageEvent,
          key: attempt.actor,
          value: encodeUsageEvent(event),
          headers: originHeaders({ ...context, actor: attempt.actor }),
        },
      ]);
    } catch (error) {
      throw new UnavailableError('The message log is unavailable: the login could not be recorded. Retry it.', {
        cause: error,
      });
    }
  };
}
