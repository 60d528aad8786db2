import { useEffect, useId, useRef, useState, type SyntheticEvent, type KeyboardEvent } from 'react';
import { Markdown } from '../ui/markdown';
import { descriptionChanged, descriptionToSend } from '../logic/curation-inputs';
import { UPDATE_DESCRIPTION } from './documents';
import { EditError, useEdit } from './edit';

interface DescriptionProps {
  readonly urn: string;
  readonly description: string | null | undefined;
  readonly canEdit: boolean;
  readonly onChanged: () => void;
}

/** An entity's description (Markdown), edited in place by those who may. */
export function DescriptionEditor(props: DescriptionProps) {
  return <DescriptionForm {...props} testId="description" what="description" />;
}

/** The description of one of a dataset's schema fields, edited in place by those who may. */
export function FieldDescriptionEditor({ fieldPath, ...props }: DescriptionProps & { readonly fieldPath: string }) {
  return (
    <DescriptionForm
      {...props}
      fieldPath={fieldPath}
      testId="field-description"
      what={`description of column ${fieldPath}`}
    />
  );
}

function DescriptionForm({
  urn,
  description,
  canEdit,
  onChanged,
  fieldPath,
  testId,
  what,
}: DescriptionProps & { readonly fieldPath?: string; readonly testId: string; readonly what: string }) {
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(description ?? '');
  const [preview, setPreview] = useState(false);
  const { run, busy, error, setError } = useEdit(UPDATE_DESCRIPTION, onChanged);
  const textareaId = useId();
  const errorId = useId();
  const textarea = useRef<HTMLTextAreaElement>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const wasEditing = useRef(false);

  // Focus follows the mode: into the text when editing starts, back to the Edit button when it ends.
  useEffect(() => {
    if (editing) textarea.current?.focus();
    else if (wasEditing.current) editButton.current?.focus();
    wasEditing.current = editing;
  }, [editing]);
  useEffect(() => {
    if (editing && !preview) textarea.current?.focus();
  }, [editing, preview]);

  function start() {
    setText(description ?? '');
    setPreview(false);
    setError(undefined);
    setEditing(true);
  }

  function cancel() {
    setError(undefined);
    setEditing(false);
  }

  async function save(event: SyntheticEvent) {
    event.preventDefault();
    if (!descriptionChanged(description, text)) {
      setEditing(false);
      return;
    }
    const input =
      fieldPath === undefined
        ? { resourceUrn: urn, description: descriptionToSend(text) }
        : {
            resourceUrn: urn,
            description: descriptionToSend(text),
            subResource: fieldPath,
            subResourceType: 'DATASET_FIELD',
          };
    if (await run({ input })) setEditing(false);
  }

  function onKeyDown(event: KeyboardEvent) {
    if (event.key === 'Escape') {
      event.preventDefault();
      cancel();
    }
  }

  if (editing) {
    return (
      <div data-testid={testId} className="curation curation-description">
        <form onSubmit={(event) => void save(event)} onKeyDown={onKeyDown}>
          {preview ? null : (
            <label htmlFor={textareaId} className={fieldPath === undefined ? undefined : 'visually-hidden'}>
              {fieldPath === undefined ? 'Description' : `Description of column ${fieldPath}`}
            </label>
          )}
          {preview ? (
            <div className="curation-preview" role="group" aria-label="Preview of the description">
              <Markdown text={text} />
              {text.trim() === '' ? <p className="muted">Nothing to preview.</p> : null}
            </div>
          ) : (
            <textarea
              id={textareaId}
              ref={textarea}
              value={text}
              aria-describedby={error === undefined ? `${textareaId}-hint` : `${textareaId}-hint ${errorId}`}
              onChange={(event) => {
                setText(event.target.value);
              }}
            />
          )}
          <p className="muted curation-hint" id={`${textareaId}-hint`}>
            Markdown: **bold**, _italic_, [links](https://example.com), lists. Escape cancels.
          </p>
          <div className="form-row">
            <button type="submit" className="button button-primary" disabled={busy}>
              {busy ? 'Saving…' : 'Save'}
            </button>
            <button type="button" className="button" onClick={cancel} disabled={busy}>
              Cancel
            </button>
            <button
              type="button"
              className="button button-quiet"
              aria-pressed={preview}
              onClick={() => {
                setPreview((shown) => !shown);
              }}
            >
              {preview ? 'Edit text' : 'Preview'}
            </button>
          </div>
          <EditError id={errorId} message={error} />
        </form>
      </div>
    );
  }

  const empty = description === null || description === undefined || description.trim() === '';
  return (
    <div data-testid={testId} className="curation curation-description">
      {empty ? <p className="muted">No description.</p> : <Markdown text={description} />}
      {canEdit ? (
        <button
          type="button"
          ref={editButton}
          className="button button-small"
          onClick={start}
          aria-label={fieldPath === undefined ? undefined : `Edit ${what}`}
        >
          {fieldPath === undefined ? 'Edit description' : 'Edit'}
        </button>
      ) : null}
    </div>
  );
}
