import { useEffect, useId, useRef, useState, type KeyboardEvent, type SyntheticEvent } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { gqlOnce } from '../api/graphql';
import { entityPath, entityTypeLabel, entityTypeOfGraphql } from '../logic/urn';

/** One autocomplete suggestion: an entity to open. */
interface Suggestion {
  readonly urn: string;
  readonly name: string;
  readonly type: string;
}

const AUTOCOMPLETE = `query consoleAutocomplete($input: AutoCompleteMultipleInput!) {
  autoCompleteForMultiple(input: $input) {
    suggestions { type entities { urn type ... on Dataset { name properties { name } } ... on Chart { properties { name } }
      ... on Dashboard { properties { name } } ... on DataJob { properties { name } } ... on DataFlow { properties { name } }
      ... on Container { properties { name } } ... on CorpUser { username } ... on CorpGroup { name }
      ... on Tag { name } ... on GlossaryTerm { name } ... on Domain { properties { name } } } }
  }
}`;

interface AutocompleteAnswer {
  autoCompleteForMultiple: {
    suggestions: {
      type: string;
      entities: { urn: string; type: string; name?: string; username?: string; properties?: { name?: string } }[];
    }[];
  } | null;
}

/**
 * The search box: Enter searches; typing suggests entities across types (a combobox: arrows move, Enter opens,
 * Escape closes), so that a known table is two keystrokes away.
 */
export function GlobalSearch({
  autoFocus = false,
  large = false,
}: {
  readonly autoFocus?: boolean;
  readonly large?: boolean;
}) {
  const navigate = useNavigate();
  const location = useLocation();
  // On the search page, the box shows the query searched (and follows it through Back and Forward).
  const searched = location.pathname === '/search' ? (new URLSearchParams(location.search).get('query') ?? '') : '';
  const [text, setText] = useState(searched);
  const [shown, setShown] = useState(searched);
  if (searched !== shown) {
    setShown(searched);
    setText(searched);
  }
  // Suggestions answer what the person types, not a query the page put in the box.
  const typed = useRef(false);
  const [suggestions, setSuggestions] = useState<Suggestion[]>([]);
  const [active, setActive] = useState(-1);
  const [open, setOpen] = useState(false);
  const listId = useId();
  const sequence = useRef(0);

  useEffect(() => {
    const query = text.trim();
    if (query.length < 2 || !typed.current) {
      setSuggestions([]);
      return;
    }
    const mine = ++sequence.current;
    const timer = window.setTimeout(() => {
      gqlOnce<AutocompleteAnswer>(AUTOCOMPLETE, { input: { query, limit: 4 } })
        .then((answer) => {
          if (mine !== sequence.current) return;
          const found = (answer.autoCompleteForMultiple?.suggestions ?? []).flatMap((group) =>
            group.entities.map((entity) => ({
              urn: entity.urn,
              type: entityTypeOfGraphql(entity.type),
              name: entity.properties?.name ?? entity.name ?? entity.username ?? entity.urn,
            })),
          );
          setSuggestions(found.slice(0, 10));
          setActive(-1);
          setOpen(true);
        })
        .catch(() => {
          if (mine === sequence.current) setSuggestions([]);
        });
    }, 150);
    return () => {
      window.clearTimeout(timer);
    };
  }, [text]);

  function submit(event: SyntheticEvent) {
    event.preventDefault();
    const chosen = active >= 0 ? suggestions[active] : undefined;
    setOpen(false);
    if (chosen !== undefined) void navigate(entityPath(chosen.urn));
    else void navigate(`/search?query=${encodeURIComponent(text.trim())}`);
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'ArrowDown' && suggestions.length > 0) {
      event.preventDefault();
      setOpen(true);
      setActive((index) => (index + 1) % suggestions.length);
    } else if (event.key === 'ArrowUp' && suggestions.length > 0) {
      event.preventDefault();
      setActive((index) => (index <= 0 ? suggestions.length - 1 : index - 1));
    } else if (event.key === 'Escape') {
      setOpen(false);
      setActive(-1);
    }
  }

  const expanded = open && suggestions.length > 0;
  return (
    <form role="search" className={large ? 'global-search global-search-large' : 'global-search'} onSubmit={submit}>
      <label htmlFor={`${listId}-input`} className="visually-hidden">
        Search the catalog
      </label>
      <input
        id={`${listId}-input`}
        type="search"
        role="combobox"
        aria-expanded={expanded}
        aria-controls={`${listId}-list`}
        aria-autocomplete="list"
        aria-activedescendant={active >= 0 ? `${listId}-option-${active}` : undefined}
        placeholder="Search datasets, dashboards, jobs, people, tags…"
        autoComplete="off"
        autoFocus={autoFocus}
        value={text}
        onChange={(event) => {
          typed.current = true;
          setText(event.target.value);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => {
          window.setTimeout(() => {
            setOpen(false);
          }, 150);
        }}
        onFocus={() => {
          setOpen(true);
        }}
      />
      <button type="submit" className="button button-primary">
        Search
      </button>
      <ul id={`${listId}-list`} role="listbox" className="suggestions" hidden={!expanded} aria-label="Suggestions">
        {suggestions.map((suggestion, index) => (
          <li
            key={suggestion.urn}
            id={`${listId}-option-${index}`}
            role="option"
            aria-selected={index === active}
            className={index === active ? 'suggestion active' : 'suggestion'}
            onMouseDown={(event) => {
              event.preventDefault();
              setOpen(false);
              void navigate(entityPath(suggestion.urn));
            }}
          >
            <span>{suggestion.name}</span>
            <span className="muted">{entityTypeLabel(suggestion.type)}</span>
          </li>
        ))}
      </ul>
    </form>
  );
}
