import { useId, useRef, useState, type SyntheticEvent } from 'react';
import { EntityLink, Pill } from '../ui/components';
import { domainUrnOfInput } from '../logic/curation-inputs';
import { SET_DOMAIN, UNSET_DOMAIN } from './documents';
import { EditError, useEdit } from './edit';
import { EntityPicker, type PickedEntity } from './entity-picker';
import { CancelButton, RevealButton, useReveal } from './reveal';

/** An entity's domain (linking to its page); those who may set it — a domain suggested as they type — or unset it. */
export function DomainEditor({
  urn,
  domain,
  canEdit,
  onChanged,
}: {
  readonly urn: string;
  readonly domain: { readonly urn: string; readonly name?: string | undefined } | null;
  readonly canEdit: boolean;
  readonly onChanged: () => void;
}) {
  const [text, setText] = useState('');
  const [picked, setPicked] = useState<PickedEntity | undefined>(undefined);
  const setting = useEdit(SET_DOMAIN, onChanged);
  const unsetting = useEdit(UNSET_DOMAIN, onChanged);
  const inputId = useId();
  const errorId = useId();
  const input = useRef<HTMLInputElement>(null);
  const reveal = useReveal(input);
  const action = domain === null ? 'Set domain' : 'Change domain';

  async function set(event: SyntheticEvent) {
    event.preventDefault();
    const parsed = domainUrnOfInput(picked !== undefined && picked.name === text ? picked.urn : text);
    if (!parsed.ok) {
      setting.setError(parsed.error);
      return;
    }
    if (parsed.value === domain?.urn) {
      setting.setError('That is the domain already.');
      return;
    }
    if (await setting.run({ entityUrn: urn, domainUrn: parsed.value })) close();
  }

  function close() {
    setText('');
    setPicked(undefined);
    setting.setError(undefined);
    reveal.hide();
  }

  async function unset() {
    if (await unsetting.run({ entityUrn: urn })) (input.current ?? reveal.opener.current)?.focus();
  }

  return (
    <div className="curation curation-domain">
      {domain === null ? (
        canEdit ? null : (
          <p className="muted curation-none">No domain.</p>
        )
      ) : (
        <p className="pills">
          <Pill>
            <EntityLink urn={domain.urn} name={domain.name} />
            {canEdit ? (
              <button
                type="button"
                className="pill-remove"
                aria-label={`Remove domain ${domain.name ?? domain.urn}`}
                title="Remove the domain"
                disabled={unsetting.busy}
                onClick={() => void unset()}
              >
                ×
              </button>
            ) : null}
          </Pill>
        </p>
      )}
      <EditError message={unsetting.error} />
      {canEdit && !reveal.open ? (
        <RevealButton opener={reveal.opener} onClick={reveal.show}>
          {action}
        </RevealButton>
      ) : null}
      {canEdit && reveal.open ? (
        <form
          className="form-row curation-add"
          onSubmit={(event) => void set(event)}
          onKeyDown={(event) => {
            if (event.key === 'Escape' && !event.defaultPrevented) {
              event.preventDefault();
              close();
            }
          }}
        >
          <label htmlFor={inputId} className="visually-hidden">
            {action}
          </label>
          <EntityPicker
            id={inputId}
            inputRef={input}
            types={['DOMAIN']}
            value={text}
            exclude={domain === null ? [] : [domain.urn]}
            placeholder="Domain"
            describedBy={setting.error === undefined ? undefined : errorId}
            onChange={(value) => {
              setText(value);
              setPicked(undefined);
              setting.setError(undefined);
            }}
            onPick={(entity) => {
              setText(entity.name);
              setPicked(entity);
            }}
          />
          <button type="submit" className="button button-small" disabled={setting.busy || text.trim() === ''}>
            {setting.busy ? 'Setting…' : 'Set'}
          </button>
          <CancelButton onClick={close} />
          <EditError id={errorId} message={setting.error} />
        </form>
      ) : null}
    </div>
  );
}
