import { useId, useRef, useState, type SyntheticEvent } from 'react';
import { EntityLink, Pill } from '../ui/components';
import {
  OWNERSHIP_TYPES,
  ownerEntityTypeOf,
  ownerOfInput,
  ownershipTypeLabel,
  ownershipTypeUrnOf,
  removalTypeUrnOf,
} from '../logic/curation-inputs';
import { displayNameOfUrn } from '../logic/urn';
import { ADD_OWNER, REMOVE_OWNER } from './documents';
import { EditError, useEdit } from './edit';
import { EntityPicker, type PickedEntity } from './entity-picker';
import { CancelButton, RevealButton, useReveal } from './reveal';

/** An owner of an entity: a user or group, with its ownership type (legacy name and/or type URN). */
export interface OwnerEntry {
  readonly urn: string;
  readonly name?: string | undefined;
  readonly type?: string | undefined;
  readonly ownershipTypeUrn?: string | undefined;
}

/**
 * An entity's owners (users and groups, linking to their pages, with their ownership type); those who may add one —
 * a user or group suggested as they type, under an ownership type — and remove one (under its type).
 */
export function OwnersEditor({
  urn,
  owners,
  canEdit,
  onChanged,
}: {
  readonly urn: string;
  readonly owners: readonly OwnerEntry[];
  readonly canEdit: boolean;
  readonly onChanged: () => void;
}) {
  const [text, setText] = useState('');
  const [picked, setPicked] = useState<PickedEntity | undefined>(undefined);
  const [type, setType] = useState<string>(OWNERSHIP_TYPES[0].type);
  const adding = useEdit(ADD_OWNER, onChanged);
  const removing = useEdit(REMOVE_OWNER, onChanged);
  const inputId = useId();
  const typeId = useId();
  const errorId = useId();
  const input = useRef<HTMLInputElement>(null);
  const reveal = useReveal(input);
  const nameOf = (owner: OwnerEntry) => owner.name ?? displayNameOfUrn(owner.urn);

  async function add(event: SyntheticEvent) {
    event.preventDefault();
    const chosen = picked !== undefined && picked.name === text ? picked.urn : text;
    const parsed = ownerOfInput(chosen);
    if (!parsed.ok) {
      adding.setError(parsed.error);
      return;
    }
    const typeUrn = ownershipTypeUrnOf(type);
    const already = owners.some((owner) => owner.urn === parsed.value.urn && removalTypeUrnOf(owner) === typeUrn);
    if (already) {
      adding.setError(`${displayNameOfUrn(parsed.value.urn)} is already an owner of that type.`);
      return;
    }
    const input_ = {
      resourceUrn: urn,
      ownerUrn: parsed.value.urn,
      ownerEntityType: parsed.value.entityType,
      type,
      ownershipTypeUrn: typeUrn,
    };
    if (await adding.run({ input: input_ })) close();
  }

  function close() {
    setText('');
    setPicked(undefined);
    adding.setError(undefined);
    reveal.hide();
  }

  async function remove(owner: OwnerEntry) {
    const typeUrn = removalTypeUrnOf(owner);
    const removal = {
      resourceUrn: urn,
      ownerUrn: owner.urn,
      ...(typeUrn === undefined ? {} : { ownershipTypeUrn: typeUrn }),
    };
    if (await removing.run({ input: removal })) (input.current ?? reveal.opener.current)?.focus();
  }

  return (
    <div className="curation curation-owners">
      {owners.length === 0 ? (
        canEdit ? null : (
          <p className="muted curation-none">No owners.</p>
        )
      ) : (
        <ul className="pills curation-pills" aria-label="Owners">
          {owners.map((owner) => {
            const typeLabel = ownershipTypeLabel(owner.ownershipTypeUrn ?? owner.type);
            return (
              <li key={`${owner.urn} ${owner.ownershipTypeUrn ?? owner.type ?? ''}`}>
                <Pill kind="owner" title={ownerEntityTypeOf(owner.urn) === 'CORP_GROUP' ? 'Group' : 'User'}>
                  <EntityLink urn={owner.urn} name={nameOf(owner)} />
                  {typeLabel === undefined ? null : <span className="muted">· {typeLabel}</span>}
                  {canEdit ? (
                    <button
                      type="button"
                      className="pill-remove"
                      aria-label={`Remove owner ${nameOf(owner)}${typeLabel === undefined ? '' : ` (${typeLabel})`}`}
                      title={`Remove owner ${nameOf(owner)}`}
                      disabled={removing.busy}
                      onClick={() => void remove(owner)}
                    >
                      ×
                    </button>
                  ) : null}
                </Pill>
              </li>
            );
          })}
        </ul>
      )}
      <EditError message={removing.error} />
      {canEdit && !reveal.open ? (
        <RevealButton opener={reveal.opener} onClick={reveal.show}>
          Add owner
        </RevealButton>
      ) : null}
      {canEdit && reveal.open ? (
        <form
          className="form-row curation-add"
          onSubmit={(event) => void add(event)}
          onKeyDown={(event) => {
            if (event.key === 'Escape' && !event.defaultPrevented) {
              event.preventDefault();
              close();
            }
          }}
        >
          <label htmlFor={inputId} className="visually-hidden">
            Add owner
          </label>
          <EntityPicker
            id={inputId}
            inputRef={input}
            types={['CORP_USER', 'CORP_GROUP']}
            value={text}
            placeholder="User or group"
            describedBy={adding.error === undefined ? undefined : errorId}
            onChange={(value) => {
              setText(value);
              setPicked(undefined);
              adding.setError(undefined);
            }}
            onPick={(entity) => {
              setText(entity.name);
              setPicked(entity);
            }}
          />
          <label htmlFor={typeId} className="visually-hidden">
            Ownership type
          </label>
          <select
            id={typeId}
            value={type}
            onChange={(event) => {
              setType(event.target.value);
            }}
          >
            {OWNERSHIP_TYPES.map((entry) => (
              <option key={entry.type} value={entry.type}>
                {entry.label}
              </option>
            ))}
          </select>
          <button type="submit" className="button button-small" disabled={adding.busy || text.trim() === ''}>
            {adding.busy ? 'Adding…' : 'Add'}
          </button>
          <CancelButton onClick={close} />
          <EditError id={errorId} message={adding.error} />
        </form>
      ) : null}
    </div>
  );
}
