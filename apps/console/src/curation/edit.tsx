import { useCallback, useState } from 'react';
import { describeFailure } from '../api/errors';
import { useGqlMutation } from '../api/graphql';

/**
 * One curation mutation as an editor runs it: the server's refusal kept as a message to show beside the control, and
 * the page told to read the entity again after a success.
 */
export function useEdit(
  mutation: string,
  onChanged: () => void,
): {
  readonly run: (variables: Record<string, unknown>) => Promise<boolean>;
  readonly busy: boolean;
  readonly error: string | undefined;
  readonly setError: (message: string | undefined) => void;
} {
  const [execute, busy] = useGqlMutation(mutation);
  const [error, setError] = useState<string | undefined>(undefined);
  const run = useCallback(
    async (variables: Record<string, unknown>) => {
      setError(undefined);
      try {
        await execute(variables);
      } catch (failure) {
        setError(messageOf(failure));
        return false;
      }
      onChanged();
      return true;
    },
    [execute, onChanged],
  );
  return { run, busy, error, setError };
}

/** A failure as one line beside a control: the server's message, and what to do when it is a refusal. */
export function messageOf(failure: unknown): string {
  const described = describeFailure(failure);
  if (described.status === 401 || described.status === 403) return `${described.title}: ${described.detail}`;
  return described.detail;
}

/** The error of an edit, announced, next to its control. */
export function EditError({ id, message }: { readonly id?: string; readonly message: string | undefined }) {
  if (message === undefined) return null;
  return (
    <p className="form-error curation-error" role="alert" id={id}>
      {message}
    </p>
  );
}
