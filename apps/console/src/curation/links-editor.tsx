import { useId, useRef, useState, type SyntheticEvent } from 'react';
import { checkLinkLabel, checkLinkUrl } from '../logic/curation-inputs';
import { ADD_LINK, REMOVE_LINK } from './documents';
import { EditError, useEdit } from './edit';
import { CancelButton, RevealButton, useReveal } from './reveal';

/** A link of an entity (DataHub's institutional memory). */
export interface LinkEntry {
  readonly url: string;
  readonly label?: string | undefined;
}

/** An entity's links (opened in a new tab; only http and https are links); those who may add and remove them. */
export function LinksEditor({
  urn,
  links,
  canEdit,
  onChanged,
}: {
  readonly urn: string;
  readonly links: readonly LinkEntry[];
  readonly canEdit: boolean;
  readonly onChanged: () => void;
}) {
  const [url, setUrl] = useState('');
  const [label, setLabel] = useState('');
  const adding = useEdit(ADD_LINK, onChanged);
  const removing = useEdit(REMOVE_LINK, onChanged);
  const urlId = useId();
  const labelId = useId();
  const errorId = useId();
  const urlInput = useRef<HTMLInputElement>(null);
  const reveal = useReveal(urlInput);

  async function add(event: SyntheticEvent) {
    event.preventDefault();
    const checkedUrl = checkLinkUrl(url);
    if (!checkedUrl.ok) {
      adding.setError(checkedUrl.error);
      urlInput.current?.focus();
      return;
    }
    const checkedLabel = checkLinkLabel(label, checkedUrl.value);
    if (!checkedLabel.ok) {
      adding.setError(checkedLabel.error);
      return;
    }
    if (links.some((link) => link.url === checkedUrl.value && (link.label ?? link.url) === checkedLabel.value)) {
      adding.setError('That link is already there.');
      return;
    }
    if (await adding.run({ input: { resourceUrn: urn, linkUrl: checkedUrl.value, label: checkedLabel.value } })) {
      close();
    }
  }

  function close() {
    setUrl('');
    setLabel('');
    adding.setError(undefined);
    reveal.hide();
  }

  async function remove(link: LinkEntry) {
    const input = { resourceUrn: urn, linkUrl: link.url, ...(link.label === undefined ? {} : { label: link.label }) };
    if (await removing.run({ input })) (urlInput.current ?? reveal.opener.current)?.focus();
  }

  return (
    <div className="curation curation-links">
      {links.length === 0 ? (
        canEdit ? null : (
          <p className="muted curation-none">No links.</p>
        )
      ) : (
        <ul className="curation-link-list" aria-label="Links">
          {links.map((link) => {
            const text = link.label === undefined || link.label === '' ? link.url : link.label;
            return (
              <li key={`${link.url} ${link.label ?? ''}`}>
                {checkLinkUrl(link.url).ok ? (
                  <a href={link.url} target="_blank" rel="noopener noreferrer nofollow">
                    {text}
                  </a>
                ) : (
                  <span>{text}</span>
                )}
                {text === link.url ? null : <span className="muted curation-link-url"> {link.url}</span>}
                {canEdit ? (
                  <button
                    type="button"
                    className="button button-quiet button-small"
                    aria-label={`Remove link ${text}`}
                    disabled={removing.busy}
                    onClick={() => void remove(link)}
                  >
                    ×
                  </button>
                ) : null}
              </li>
            );
          })}
        </ul>
      )}
      <EditError message={removing.error} />
      {canEdit && !reveal.open ? (
        <RevealButton opener={reveal.opener} onClick={reveal.show}>
          Add link
        </RevealButton>
      ) : null}
      {canEdit && reveal.open ? (
        <form
          className="form-row curation-add curation-add-link"
          onSubmit={(event) => void add(event)}
          onKeyDown={(event) => {
            if (event.key === 'Escape' && !event.defaultPrevented) {
              event.preventDefault();
              close();
            }
          }}
          noValidate
        >
          <label htmlFor={urlId} className="curation-label">
            Link URL
          </label>
          <input
            id={urlId}
            ref={urlInput}
            type="url"
            inputMode="url"
            placeholder="https://…"
            value={url}
            aria-describedby={adding.error === undefined ? undefined : errorId}
            onChange={(event) => {
              setUrl(event.target.value);
              adding.setError(undefined);
            }}
          />
          <label htmlFor={labelId} className="curation-label">
            Link label
          </label>
          <input
            id={labelId}
            type="text"
            placeholder="Optional"
            value={label}
            onChange={(event) => {
              setLabel(event.target.value);
              adding.setError(undefined);
            }}
          />
          <button type="submit" className="button button-small" disabled={adding.busy || url.trim() === ''}>
            {adding.busy ? 'Adding…' : 'Add link'}
          </button>
          <CancelButton onClick={close} />
          <EditError id={errorId} message={adding.error} />
        </form>
      ) : null}
    </div>
  );
}
