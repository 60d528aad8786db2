import { useId, useRef, useState, type KeyboardEvent, type SyntheticEvent } from 'react';
import { gqlOnce } from '../api/graphql';
import { restJson } from '../api/rest';
import { EntityLink, Pill } from '../ui/components';
import { tagOfInput, termUrnOfInput, type Checked } from '../logic/curation-inputs';
import { displayNameOfUrn } from '../logic/urn';
import { ADD_TAG, ADD_TERM, ENTITY_EXISTS, REMOVE_TAG, REMOVE_TERM } from './documents';
import { EditError, messageOf, useEdit } from './edit';
import { EntityPicker, type PickedEntity } from './entity-picker';
import { CancelButton, RevealButton, useReveal } from './reveal';

/** A tag or glossary term on an entity (or on one of its schema fields). */
export interface Label {
  readonly urn: string;
  readonly name?: string | undefined;
}

interface LabelsProps {
  readonly urn: string;
  readonly canEdit: boolean;
  readonly onChanged: () => void;
  /** A schema field's path: the labels are on that field of the dataset. */
  readonly subResource?: string | undefined;
}

/** What differs between tags and terms. */
interface LabelKind {
  readonly noun: string;
  readonly pill: 'tag' | 'term';
  readonly entityType: string;
  readonly add: string;
  readonly remove: string;
  readonly key: 'tagUrn' | 'termUrn';
  readonly placeholder: string;
  /** What typed text names (a tag may be new; a term must exist). */
  readonly parse: (text: string) => Checked<{ readonly urn: string; readonly name: string; readonly isNew?: boolean }>;
}

const TAG: LabelKind = {
  noun: 'tag',
  pill: 'tag',
  entityType: 'TAG',
  add: ADD_TAG,
  remove: REMOVE_TAG,
  key: 'tagUrn',
  placeholder: 'Tag name',
  parse: (text) => {
    const checked = tagOfInput(text);
    return checked.ok ? { ok: true, value: { ...checked.value, isNew: true } } : checked;
  },
};

const TERM: LabelKind = {
  noun: 'glossary term',
  pill: 'term',
  entityType: 'GLOSSARY_TERM',
  add: ADD_TERM,
  remove: REMOVE_TERM,
  key: 'termUrn',
  placeholder: 'Glossary term',
  parse: (text) => {
    const checked = termUrnOfInput(text);
    return checked.ok ? { ok: true, value: { urn: checked.value, name: displayNameOfUrn(checked.value) } } : checked;
  },
};

/**
 * An entity's tags (or a schema field's), each linking to its page; those who may add a tag — an existing one,
 * suggested as they type, or a new one by name, which is made first — and remove one.
 */
export function TagsEditor({ tags, ...props }: LabelsProps & { readonly tags: readonly Label[] }) {
  return <LabelsEditor kind={TAG} labels={tags} {...props} />;
}

/** An entity's glossary terms (or a schema field's); those who may add an existing term and remove one. */
export function TermsEditor({ terms, ...props }: LabelsProps & { readonly terms: readonly Label[] }) {
  return <LabelsEditor kind={TERM} labels={terms} {...props} />;
}

function LabelsEditor({
  kind,
  labels,
  urn,
  canEdit,
  onChanged,
  subResource,
}: LabelsProps & { readonly kind: LabelKind; readonly labels: readonly Label[] }) {
  const [text, setText] = useState('');
  const [making, setMaking] = useState(false);
  const adding = useEdit(kind.add, onChanged);
  const removing = useEdit(kind.remove, onChanged);
  const inputId = useId();
  const errorId = useId();
  const input = useRef<HTMLInputElement>(null);
  // The add form opens on demand (one small button), and closes after an add, on Escape or Cancel.
  const reveal = useReveal(input);
  const onField = subResource !== undefined && subResource !== '';
  const where = onField ? { subResource, subResourceType: 'DATASET_FIELD' } : {};
  const present = new Set(labels.map((label) => label.urn));
  const nameOf = (label: Label) => label.name ?? displayNameOfUrn(label.urn);
  const formShown = canEdit && reveal.open;

  function close() {
    setText('');
    adding.setError(undefined);
    reveal.hide();
  }

  /** Adds what was typed: an existing label by URN, or (a tag) a new one by name, made first. */
  async function addTyped(event: SyntheticEvent) {
    event.preventDefault();
    const parsed = kind.parse(text);
    if (!parsed.ok) {
      adding.setError(parsed.error);
      return;
    }
    const target = parsed.value;
    if (present.has(target.urn)) {
      adding.setError(`${capitalized(kind.noun)} ${target.name} is already there.`);
      return;
    }
    if (target.isNew === true && !(await makeTag(target.urn, target.name))) return;
    await addLabel(target.urn);
  }

  async function addLabel(labelUrn: string) {
    if (await adding.run({ input: { resourceUrn: urn, [kind.key]: labelUrn, ...where } })) close();
  }

  /** Makes a tag that does not exist yet (its properties, named), leaving one that exists as it is. */
  async function makeTag(tagUrn: string, name: string): Promise<boolean> {
    setMaking(true);
    adding.setError(undefined);
    try {
      const exists = await gqlOnce<{ entityExists: boolean | null }>(ENTITY_EXISTS, { urn: tagUrn });
      if (exists.entityExists !== true) {
        await restJson(
          'POST',
          '/aspects?action=ingestProposal',
          {
            proposal: {
              entityType: 'tag',
              entityUrn: tagUrn,
              changeType: 'CREATE_ENTITY',
              aspectName: 'tagProperties',
              aspect: { value: JSON.stringify({ name }), contentType: 'application/json' },
              headers: { 'If-None-Match': '*' },
            },
          },
          { 'X-DataHub-Sync-Index-Update': 'true', 'X-RestLi-Protocol-Version': '2.0.0' },
        );
      }
      return true;
    } catch (failure) {
      adding.setError(`The tag ${name} could not be made. ${messageOf(failure)}`);
      return false;
    } finally {
      setMaking(false);
    }
  }

  async function remove(label: Label) {
    if (await removing.run({ input: { resourceUrn: urn, [kind.key]: label.urn, ...where } })) {
      (input.current ?? reveal.opener.current)?.focus();
    }
  }

  function onKeyDown(event: KeyboardEvent) {
    if (event.key !== 'Escape' || event.defaultPrevented) return;
    event.preventDefault();
    close();
  }

  const inputLabel = onField ? `Add ${kind.noun} to column ${subResource}` : `Add ${kind.noun}`;
  const busy = adding.busy || making;
  return (
    <div className={`curation curation-labels curation-${kind.pill}s`}>
      {labels.length === 0 ? (
        onField || canEdit ? null : (
          <p className="muted curation-none">No {kind.noun}s.</p>
        )
      ) : (
        <ul
          className="pills curation-pills"
          aria-label={onField ? `${capitalized(kind.noun)}s of column ${subResource}` : `${capitalized(kind.noun)}s`}
        >
          {labels.map((label) => (
            <li key={label.urn}>
              <Pill kind={kind.pill}>
                <EntityLink urn={label.urn} name={nameOf(label)} />
                {canEdit ? (
                  <button
                    type="button"
                    className="pill-remove"
                    aria-label={`Remove ${kind.noun} ${nameOf(label)}`}
                    title={`Remove ${kind.noun} ${nameOf(label)}`}
                    disabled={removing.busy}
                    onClick={() => void remove(label)}
                  >
                    ×
                  </button>
                ) : null}
              </Pill>
            </li>
          ))}
        </ul>
      )}
      <EditError message={removing.error} />
      {canEdit && !reveal.open ? (
        <RevealButton
          opener={reveal.opener}
          onClick={reveal.show}
          label={onField ? inputLabel : undefined}
          quiet={onField}
        >
          {onField ? capitalized(kind.noun === 'glossary term' ? 'term' : kind.noun) : inputLabel}
        </RevealButton>
      ) : null}
      {formShown ? (
        <form className="form-row curation-add" onSubmit={(event) => void addTyped(event)} onKeyDown={onKeyDown}>
          <label htmlFor={inputId} className="visually-hidden">
            {inputLabel}
          </label>
          <EntityPicker
            id={inputId}
            inputRef={input}
            types={[kind.entityType]}
            value={text}
            exclude={[...present]}
            placeholder={kind.placeholder}
            describedBy={adding.error === undefined ? undefined : errorId}
            onChange={(value) => {
              setText(value);
              adding.setError(undefined);
            }}
            onPick={(entity: PickedEntity) => {
              setText(entity.name);
              void addLabel(entity.urn);
            }}
          />
          <button type="submit" className="button button-small" disabled={busy || text.trim() === ''}>
            {busy ? 'Adding…' : 'Add'}
          </button>
          <CancelButton onClick={close} />
          <EditError id={errorId} message={adding.error} />
        </form>
      ) : null}
    </div>
  );
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
