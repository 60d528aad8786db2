import { useId, useState } from 'react';
import { FACETS, facetValueLabel, type SearchState } from '../../logic/search-state';
import { nameOf } from './entity-summary';
import type { FacetAnswer } from './queries';

/** Values a facet shows before "Show more". */
const FOLDED_VALUES = 8;

/** One value of a facet as the panel lists it. */
export interface FacetValue {
  readonly value: string;
  readonly label: string;
  /** Undefined for a ticked value the current results do not count (none of them has it). */
  readonly count: number | undefined;
  readonly checked: boolean;
}

/**
 * The values of each facet the page shows, from the server's facets and the ticked filters: labels are display
 * names (the platform's, the user's, the tag's) where the server names the entity, and a ticked value is listed even
 * when no result has it (so that it can be unticked).
 */
export function facetValuesOf(
  facets: readonly FacetAnswer[],
  state: SearchState,
): { readonly field: string; readonly label: string; readonly values: FacetValue[] }[] {
  return FACETS.map(({ field, label }) => {
    const answer = facets.find((facet) => facet.field === field);
    const ticked = state.filters[field] ?? [];
    const values: FacetValue[] = (answer?.aggregations ?? [])
      .filter((aggregation) => aggregation.count > 0 || ticked.includes(aggregation.value))
      .map((aggregation) => ({
        value: aggregation.value,
        label: facetValueLabel(
          field,
          aggregation.value,
          aggregation.entity == null ? undefined : nameOf(aggregation.entity),
        ),
        count: aggregation.count,
        checked: ticked.includes(aggregation.value),
      }));
    for (const value of ticked) {
      if (!values.some((item) => item.value === value)) {
        values.push({ value, label: facetValueLabel(field, value), count: undefined, checked: true });
      }
    }
    return { field, label, values };
  }).filter((facet) => facet.values.length > 0);
}

/** The filter panel: a group of checkboxes per facet, each value with its count. */
export function FacetPanel({
  facets,
  onToggle,
}: {
  readonly facets: ReturnType<typeof facetValuesOf>;
  readonly onToggle: (field: string, value: string, on: boolean) => void;
}) {
  if (facets.length === 0) return <p className="muted">No filters apply to these results.</p>;
  return (
    <div className="facet-groups">
      {facets.map((facet) => (
        <FacetGroup
          key={facet.field}
          field={facet.field}
          label={facet.label}
          values={facet.values}
          onToggle={onToggle}
        />
      ))}
    </div>
  );
}

function FacetGroup({
  field,
  label,
  values,
  onToggle,
}: {
  readonly field: string;
  readonly label: string;
  readonly values: readonly FacetValue[];
  readonly onToggle: (field: string, value: string, on: boolean) => void;
}) {
  const [open, setOpen] = useState(false);
  const id = useId();
  // Folded: the first values, and every ticked one wherever it is.
  const shown = open ? values : values.filter((value, index) => index < FOLDED_VALUES || value.checked);
  const hidden = values.length - shown.length;
  return (
    <fieldset className="facet" data-testid={`facet-${field}`}>
      <legend>{label}</legend>
      <ul className="facet-values" id={`${id}-values`}>
        {shown.map((value) => (
          <li key={value.value}>
            <label className="facet-value" title={value.value}>
              <input
                type="checkbox"
                checked={value.checked}
                onChange={(event) => {
                  onToggle(field, value.value, event.target.checked);
                }}
              />
              <span className="facet-value-label">{value.label}</span>
              <span className="facet-value-count">
                {value.count === undefined ? '' : value.count.toLocaleString()}
                <span className="visually-hidden">{value.count === undefined ? '' : ' results'}</span>
              </span>
            </label>
          </li>
        ))}
      </ul>
      {hidden > 0 || open ? (
        <button
          type="button"
          className="button button-quiet button-small"
          aria-expanded={open}
          aria-controls={`${id}-values`}
          onClick={() => {
            setOpen(!open);
          }}
        >
          {open ? 'Show fewer' : `Show ${hidden} more`}
        </button>
      ) : null}
    </fieldset>
  );
}
