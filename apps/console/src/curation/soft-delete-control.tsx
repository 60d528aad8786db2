import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { SOFT_DELETE } from './documents';
import { EditError, useEdit } from './edit';

/**
 * Soft deletion: whether the entity is hidden from search and browse; those who may hide it or restore it, after
 * confirming.
 */
export function SoftDeleteControl({
  urn,
  removed,
  canEdit,
  onChanged,
  showState = true,
}: {
  readonly urn: string;
  readonly removed: boolean;
  readonly canEdit: boolean;
  readonly onChanged: () => void;
  /** Whether to show the state too (not where the page shows it already, as the entity header does). */
  readonly showState?: boolean;
}) {
  const [confirming, setConfirming] = useState(false);
  const { run, busy, error, setError } = useEdit(SOFT_DELETE, onChanged);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const startButton = useRef<HTMLButtonElement>(null);
  const wasConfirming = useRef(false);

  useEffect(() => {
    if (confirming) confirmButton.current?.focus();
    else if (wasConfirming.current) startButton.current?.focus();
    wasConfirming.current = confirming;
  }, [confirming]);

  async function confirm() {
    if (await run({ input: { urns: [urn], deleted: !removed } })) setConfirming(false);
  }

  function onKeyDown(event: KeyboardEvent) {
    if (event.key === 'Escape') {
      event.preventDefault();
      setError(undefined);
      setConfirming(false);
    }
  }

  const action = removed ? 'Restore' : 'Soft-delete';
  return (
    <div className="curation curation-soft-delete" data-testid="soft-delete">
      {removed && showState ? (
        <p className="notice curation-removed" role="status">
          This entity is soft-deleted: it is hidden from search and browse, and its page still shows it.
        </p>
      ) : null}
      {canEdit ? (
        confirming ? (
          <div
            className="notice curation-confirm"
            role="group"
            aria-label={`Confirm: ${action.toLowerCase()}`}
            onKeyDown={onKeyDown}
          >
            <p>
              {removed
                ? 'Restore this entity? It will show in search and browse again.'
                : 'Soft-delete this entity? It will be hidden from search and browse; it can be restored.'}
            </p>
            <div className="form-row">
              <button
                type="button"
                ref={confirmButton}
                className={removed ? 'button button-primary' : 'button button-danger'}
                disabled={busy}
                onClick={() => void confirm()}
              >
                {busy ? 'Working…' : `Yes, ${action.toLowerCase()}`}
              </button>
              <button
                type="button"
                className="button"
                disabled={busy}
                onClick={() => {
                  setError(undefined);
                  setConfirming(false);
                }}
              >
                Cancel
              </button>
            </div>
            <EditError message={error} />
          </div>
        ) : (
          <button
            type="button"
            ref={startButton}
            className={removed ? 'button button-small' : 'button button-small button-danger'}
            onClick={() => {
              setConfirming(true);
            }}
          >
            {action}
          </button>
        )
      ) : null}
    </div>
  );
}
