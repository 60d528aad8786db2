import { useEffect, useId, useRef, useState, type SyntheticEvent, type KeyboardEvent } from 'react';
import { Pill, Time } from '../ui/components';
import { checkDeprecation, dateOfMillis } from '../logic/curation-inputs';
import { UPDATE_DEPRECATION } from './documents';
import { EditError, useEdit } from './edit';

/** An entity's deprecation as the page read it. */
export interface DeprecationState {
  readonly deprecated: boolean;
  readonly note?: string | null | undefined;
  readonly decommissionTime?: number | null | undefined;
}

/**
 * Whether an entity is deprecated, with its note and decommission date; those who may mark it deprecated (a note, an
 * optional date) or not.
 */
export function DeprecationEditor({
  urn,
  deprecation,
  canEdit,
  onChanged,
  showState = true,
}: {
  readonly urn: string;
  readonly deprecation: DeprecationState | null;
  readonly canEdit: boolean;
  readonly onChanged: () => void;
  /** Whether to show the state too (not where the page shows it already, as the entity header does). */
  readonly showState?: boolean;
}) {
  const deprecated = deprecation?.deprecated === true;
  const [editing, setEditing] = useState(false);
  const [form, setForm] = useState({ deprecated: true, note: '', date: '' });
  const { run, busy, error, setError } = useEdit(UPDATE_DEPRECATION, onChanged);
  const checkboxId = useId();
  const noteId = useId();
  const dateId = useId();
  const errorId = useId();
  const checkbox = useRef<HTMLInputElement>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);

  useEffect(() => {
    if (editing) checkbox.current?.focus();
    else if (wasEditing.current) editButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);

  function start() {
    setForm({
      deprecated: true,
      note: deprecation?.note ?? '',
      date: dateOfMillis(deprecation?.decommissionTime),
    });
    setError(undefined);
    setEditing(true);
  }

  function cancel() {
    setError(undefined);
    setEditing(false);
  }

  async function save(event: SyntheticEvent) {
    event.preventDefault();
    const checked = checkDeprecation(form);
    if (!checked.ok) {
      setError(checked.error);
      return;
    }
    const { deprecated: on, note, decommissionTime } = checked.value;
    const input = { urn, deprecated: on, note, ...(decommissionTime === null ? {} : { decommissionTime }) };
    if (await run({ input })) setEditing(false);
  }

  function onKeyDown(event: KeyboardEvent) {
    if (event.key === 'Escape') {
      event.preventDefault();
      cancel();
    }
  }

  return (
    <div className="curation curation-deprecation" data-testid="deprecation">
      {!showState ? null : deprecated ? (
        <div className="notice curation-deprecated">
          <p>
            <Pill kind="warning">Deprecated</Pill>
            {deprecation.decommissionTime ? (
              <span>
                {' '}
                Decommission: <Time millis={deprecation.decommissionTime} />
              </span>
            ) : null}
          </p>
          {deprecation.note ? <p className="curation-note">{deprecation.note}</p> : null}
        </div>
      ) : editing ? null : (
        <p className="muted curation-none">Not deprecated.</p>
      )}
      {editing ? (
        <form className="curation-form" onSubmit={(event) => void save(event)} onKeyDown={onKeyDown}>
          <div className="form-row">
            <input
              id={checkboxId}
              ref={checkbox}
              type="checkbox"
              checked={form.deprecated}
              onChange={(event) => {
                setForm({ ...form, deprecated: event.target.checked });
              }}
            />
            <label htmlFor={checkboxId}>Deprecated</label>
          </div>
          <div className="curation-field">
            <label htmlFor={noteId}>Deprecation note</label>
            <textarea
              id={noteId}
              className="curation-short"
              value={form.note}
              disabled={!form.deprecated}
              placeholder="Why, and what to use instead"
              onChange={(event) => {
                setForm({ ...form, note: event.target.value });
              }}
            />
          </div>
          <div className="form-row">
            <label htmlFor={dateId}>Decommission date</label>
            <input
              id={dateId}
              type="date"
              value={form.date}
              disabled={!form.deprecated}
              aria-describedby={error === undefined ? undefined : errorId}
              onChange={(event) => {
                setForm({ ...form, date: event.target.value });
              }}
            />
            <span className="muted">(optional)</span>
          </div>
          <div className="form-row">
            <button type="submit" className="button button-primary" disabled={busy}>
              {busy ? 'Saving…' : 'Save'}
            </button>
            <button type="button" className="button" onClick={cancel} disabled={busy}>
              Cancel
            </button>
          </div>
          <EditError id={errorId} message={error} />
        </form>
      ) : canEdit ? (
        <button type="button" ref={editButton} className="button button-small" onClick={start}>
          {deprecated ? 'Edit deprecation' : 'Mark as deprecated'}
        </button>
      ) : null}
    </div>
  );
}
