import { useEffect, useId, useRef, useState, type KeyboardEvent, type Ref } from 'react';
import { gqlOnce } from '../api/graphql';
import { AUTOCOMPLETE_MANY, AUTOCOMPLETE_ONE, nameOfEntity, type NamedEntity } from './documents';

/** An entity the picker offers. */
export interface PickedEntity {
  readonly urn: string;
  readonly name: string;
}

const LIMIT = 8;

/**
 * A text input suggesting existing entities of some types as one types (a combobox: arrows move, Enter takes the
 * highlighted one, Escape closes the list — or, when it is closed, lets the form cancel). Typing free text is allowed;
 * the form decides what it means.
 */
export function EntityPicker({
  id,
  types,
  value,
  onChange,
  onPick,
  placeholder,
  inputRef,
  describedBy,
  exclude = [],
}: {
  readonly id: string;
  /** GraphQL `EntityType`s to suggest. */
  readonly types: readonly string[];
  readonly value: string;
  readonly onChange: (text: string) => void;
  readonly onPick: (entity: PickedEntity) => void;
  readonly placeholder?: string;
  readonly inputRef?: Ref<HTMLInputElement>;
  readonly describedBy?: string | undefined;
  /** URNs not to offer (already there). */
  readonly exclude?: readonly string[];
}) {
  const [suggestions, setSuggestions] = useState<PickedEntity[]>([]);
  const [active, setActive] = useState(-1);
  const [open, setOpen] = useState(false);
  const listId = useId();
  const sequence = useRef(0);
  const typesKey = types.join(',');
  const excludeKey = exclude.join('\n');

  useEffect(() => {
    const query = value.trim();
    const mine = ++sequence.current;
    if (query.length < 1) {
      setSuggestions([]);
      return;
    }
    const timer = window.setTimeout(() => {
      void suggest(typesKey.split(','), query)
        .then((found) => {
          if (mine !== sequence.current) return;
          const excluded = new Set(excludeKey.split('\n'));
          setSuggestions(found.filter((entity) => !excluded.has(entity.urn)));
          setActive(-1);
        })
        .catch(() => {
          if (mine === sequence.current) setSuggestions([]);
        });
    }, 150);
    return () => {
      window.clearTimeout(timer);
    };
  }, [value, typesKey, excludeKey]);

  function pick(entity: PickedEntity) {
    setOpen(false);
    setActive(-1);
    onPick(entity);
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    const expanded = open && suggestions.length > 0;
    if (event.key === 'ArrowDown' && suggestions.length > 0) {
      event.preventDefault();
      setOpen(true);
      setActive((index) => (index + 1) % suggestions.length);
    } else if (event.key === 'ArrowUp' && suggestions.length > 0) {
      event.preventDefault();
      setOpen(true);
      setActive((index) => (index <= 0 ? suggestions.length - 1 : index - 1));
    } else if (event.key === 'Enter' && expanded && active >= 0) {
      const chosen = suggestions[active];
      if (chosen !== undefined) {
        event.preventDefault();
        pick(chosen);
      }
    } else if (event.key === 'Escape' && expanded) {
      // Closing the list is all Escape does here; with the list closed it reaches the form (cancel).
      event.preventDefault();
      event.stopPropagation();
      setOpen(false);
      setActive(-1);
    }
  }

  const expanded = open && suggestions.length > 0;
  return (
    <span className="curation-picker">
      <input
        id={id}
        ref={inputRef}
        type="text"
        role="combobox"
        aria-expanded={expanded}
        aria-controls={`${listId}-list`}
        aria-autocomplete="list"
        aria-activedescendant={expanded && active >= 0 ? `${listId}-option-${active}` : undefined}
        aria-describedby={describedBy}
        autoComplete="off"
        placeholder={placeholder}
        value={value}
        onChange={(event) => {
          onChange(event.target.value);
          setOpen(true);
        }}
        onKeyDown={onKeyDown}
        onFocus={() => {
          setOpen(true);
        }}
        onBlur={() => {
          window.setTimeout(() => {
            setOpen(false);
          }, 150);
        }}
      />
      <ul id={`${listId}-list`} role="listbox" className="suggestions" hidden={!expanded} aria-label="Suggestions">
        {suggestions.map((entity, index) => (
          <li
            key={entity.urn}
            id={`${listId}-option-${index}`}
            role="option"
            aria-selected={index === active}
            className={index === active ? 'suggestion active' : 'suggestion'}
            onMouseDown={(event) => {
              event.preventDefault();
              pick(entity);
            }}
          >
            <span>{entity.name}</span>
            <span className="muted mono">{entity.urn}</span>
          </li>
        ))}
      </ul>
    </span>
  );
}

/** Existing entities of `types` whose names start like `query`, at most {@link LIMIT}. */
async function suggest(types: readonly string[], query: string): Promise<PickedEntity[]> {
  let entities: readonly NamedEntity[];
  if (types.length === 1) {
    const answer = await gqlOnce<{ autoComplete: { entities: NamedEntity[] } | null }>(AUTOCOMPLETE_ONE, {
      input: { type: types[0], query, limit: LIMIT },
    });
    entities = answer.autoComplete?.entities ?? [];
  } else {
    const answer = await gqlOnce<{ autoCompleteForMultiple: { suggestions: { entities: NamedEntity[] }[] } | null }>(
      AUTOCOMPLETE_MANY,
      { input: { types, query, limit: LIMIT } },
    );
    entities = (answer.autoCompleteForMultiple?.suggestions ?? []).flatMap((group) => group.entities);
  }
  const seen = new Set<string>();
  return entities
    .filter((entity) => !seen.has(entity.urn) && seen.add(entity.urn))
    .slice(0, LIMIT)
    .map((entity) => ({ urn: entity.urn, name: nameOfEntity(entity) }));
}
