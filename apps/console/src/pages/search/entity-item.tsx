import { Fragment, type ReactNode } from 'react';
import { Link } from 'react-router';
import { highlightSegments, matchedFieldLabel, plainSummary } from '../../logic/search-state';
import { displayNameOfUrn, entityPath, entityTypeLabel, entityTypeOfUrn } from '../../logic/urn';
import { EntityLink, Pill } from '../../ui/components';
import type { EntitySummary, NamedRef } from './entity-summary';
import './entity-item.css';

/** Text with the query's words wrapped in `<mark>`: React text nodes only, so nothing in the text is parsed as HTML. */
export function Highlighted({ text, terms }: { readonly text: string; readonly terms: readonly string[] }) {
  return (
    <>
      {highlightSegments(text, terms).map((segment, index) =>
        segment.mark ? <mark key={index}>{segment.text}</mark> : <Fragment key={index}>{segment.text}</Fragment>,
      )}
    </>
  );
}

/** The most labels of one kind a row shows; the rest are counted. */
const MAX_PILLS = 4;

function Pills({
  refs,
  kind,
  label,
}: {
  readonly refs: readonly NamedRef[];
  readonly kind: 'owner' | 'tag' | 'term' | 'default';
  readonly label: string;
}) {
  if (refs.length === 0) return null;
  const more = refs.length - MAX_PILLS;
  return (
    <li className="entity-labels-group">
      <span className="visually-hidden">{label}: </span>
      {refs.slice(0, MAX_PILLS).map((ref) => (
        <Pill key={ref.urn} kind={kind} title={`${label}: ${ref.urn}`}>
          <EntityLink urn={ref.urn} name={ref.name} />
        </Pill>
      ))}
      {more > 0 ? <span className="muted">+{more}</span> : null}
    </li>
  );
}

/** The fields whose matches the name and description already show (or that say nothing to a reader). */
const SHOWN_FIELDS = new Set([
  'urn',
  'id',
  'name',
  'title',
  'qualifiedName',
  'editedName',
  'description',
  'editedDescription',
  'displayName',
  'username',
  'definition',
  // A column's other URNs (its aliases) repeat what its name and parent say.
  'schemaFieldAliases',
]);

/** A matched value as a reader sees it: an entity URN as the entity's short name, long values cut. */
function shownValue(value: string): string {
  const text = entityTypeOfUrn(value) === undefined ? value : displayNameOfUrn(value);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

/**
 * One entity in a list: its name (a link to its page, with the query's words marked), its type, platform and sub-type,
 * a one-line description, the other fields that matched the query, and its owners, tags, terms and domain. A
 * soft-deleted entity carries a "deleted" pill.
 */
export function EntityItem({
  summary,
  terms = [],
  matchedFields = [],
  testId,
  aside,
  headingLevel = 3,
}: {
  readonly summary: EntitySummary;
  readonly terms?: readonly string[];
  readonly matchedFields?: readonly { readonly name: string; readonly value: string }[];
  readonly testId: string;
  /** Shown at the end of the first line (a time, a count). */
  readonly aside?: ReactNode;
  readonly headingLevel?: 2 | 3 | 4;
}) {
  const Heading = `h${headingLevel}` as const;
  const description = plainSummary(summary.description);
  const matches = matchedFields
    .filter((field) => !SHOWN_FIELDS.has(field.name) && field.value.trim() !== '')
    .filter((field) => field.value !== summary.parent?.urn)
    .map((field) => ({ name: field.name, value: shownValue(field.value) }))
    .filter((field, index, all) => all.findIndex((other) => other.value === field.value) === index)
    .slice(0, 3);
  return (
    <li className="entity-item" data-testid={testId}>
      <div className="entity-item-head">
        <Heading className="entity-item-name">
          <Link to={entityPath(summary.urn)} title={summary.urn}>
            <Highlighted text={summary.name} terms={terms} />
          </Link>
        </Heading>
        {summary.removed ? (
          <Pill kind="danger" title="Soft-deleted: hidden from search unless deleted entities are shown">
            deleted
          </Pill>
        ) : null}
        {aside === undefined ? null : <span className="entity-item-aside">{aside}</span>}
      </div>
      <p className="entity-item-meta">
        <span>{entityTypeLabel(summary.type)}</span>
        {summary.subType === undefined ? null : <span>{summary.subType}</span>}
        {summary.platform === undefined ? null : <span>{summary.platform.name}</span>}
        {summary.parent === undefined ? null : (
          <span>
            in <EntityLink urn={summary.parent.urn} name={summary.parent.name} />
          </span>
        )}
      </p>
      {description === '' ? null : (
        <p className="entity-item-description">
          <Highlighted text={description} terms={terms} />
        </p>
      )}
      {matches.length === 0 ? null : (
        <p className="entity-item-matches">
          Matched{' '}
          {matches.map((field, index) => (
            <Fragment key={`${field.name}:${field.value}`}>
              {index > 0 ? '; ' : null}
              <span className="muted">{matchedFieldLabel(field.name)}:</span>{' '}
              <Highlighted text={field.value} terms={terms} />
            </Fragment>
          ))}
        </p>
      )}
      {summary.owners.length + summary.tags.length + summary.terms.length === 0 &&
      summary.domain === undefined ? null : (
        <ul className="entity-labels" aria-label="Owners, tags, terms and domain">
          <Pills refs={summary.owners} kind="owner" label="Owner" />
          <Pills refs={summary.tags} kind="tag" label="Tag" />
          <Pills refs={summary.terms} kind="term" label="Glossary term" />
          <Pills refs={summary.domain === undefined ? [] : [summary.domain]} kind="default" label="Domain" />
        </ul>
      )}
    </li>
  );
}
