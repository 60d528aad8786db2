import { Link } from 'react-router';
import {
  DeprecationEditor,
  DomainEditor,
  OwnersEditor,
  SoftDeleteControl,
  TagsEditor,
  TermsEditor,
} from '../../curation';
import { Markdown, safeUrl } from '../../ui/markdown';
import { PageTitle, Pill, Time } from '../../ui/components';
import type { EntitySummary } from '../../logic/entity-summary';
import { entityPath } from '../../logic/urn';

/**
 * What an entity is and where it sits (type, platform, the containers above it), who owns it, its tags, terms and
 * domain, and its state (deprecated, soft-deleted), each with the edit the user's privileges allow.
 */
export function EntityHeader({
  summary,
  onChanged,
}: {
  readonly summary: EntitySummary;
  readonly onChanged: () => void;
}) {
  const can = summary.privileges;
  const deprecation = summary.deprecation?.deprecated === true ? summary.deprecation : null;
  const mayDeprecate = summary.has.deprecation && can.canEditDeprecation === true;
  const mayDelete = summary.has.status && can.canManageEntity === true;
  // Only a web address is a link (never `javascript:` or `data:` from metadata).
  const externalUrl =
    summary.externalUrl !== undefined && /^https?:/i.test(safeUrl(summary.externalUrl))
      ? summary.externalUrl
      : undefined;
  return (
    <header className="entity-header" data-testid="entity-header">
      {summary.path.length > 0 || summary.platform !== undefined ? (
        <nav className="entity-path" aria-label="Where it is">
          <ol>
            {summary.platform === undefined ? null : (
              <li>
                <Link to={entityPath(summary.platform.urn)}>{summary.platform.name ?? summary.platform.urn}</Link>
              </li>
            )}
            {summary.path.map((step, index) => (
              <li key={`${step.urn ?? step.name}-${index}`}>
                {step.urn === undefined ? step.name : <Link to={entityPath(step.urn)}>{step.name}</Link>}
              </li>
            ))}
          </ol>
        </nav>
      ) : null}
      <PageTitle title={`${summary.name} · ${summary.typeLabel}`}>
        <span id="entity-title" data-testid="entity-name">
          {summary.name}
        </span>
      </PageTitle>
      <p className="entity-kind">
        <span>{summary.typeLabel}</span>
        {summary.subTypes.map((subType) => (
          <Pill key={subType}>{subType}</Pill>
        ))}
        {summary.platform === undefined ? null : <span className="muted">on {summary.platform.name}</span>}
        {summary.removed ? (
          <Pill kind="danger" title="Soft-deleted: hidden from search and browse">
            Soft-deleted
          </Pill>
        ) : null}
        {deprecation === null ? null : <Pill kind="warning">Deprecated</Pill>}
        {externalUrl === undefined ? null : (
          <a href={externalUrl} target="_blank" rel="noopener noreferrer nofollow" className="entity-external">
            View in {summary.platform?.name ?? 'source'}
            <span className="visually-hidden"> (opens in a new tab)</span>
          </a>
        )}
      </p>
      <p className="entity-urn mono muted">{summary.urn}</p>

      {summary.removed ? (
        <div className="notice notice-error entity-state" role="note">
          <p className="notice-title">This entity is soft-deleted</p>
          <p>Its metadata is kept, but search, browse and lineage leave it out until it is restored.</p>
        </div>
      ) : null}
      {deprecation === null ? null : (
        <div className="notice entity-state entity-deprecated" role="note">
          <p className="notice-title">Deprecated</p>
          <Markdown text={deprecation.note} />
          {deprecation.decommissionTime === undefined ? null : (
            <p>
              To be decommissioned: <Time millis={deprecation.decommissionTime} />
            </p>
          )}
        </div>
      )}

      <dl className="entity-facets">
        {summary.has.owners ? (
          <div className="entity-facet">
            <dt>Owners</dt>
            <dd>
              <OwnersEditor
                urn={summary.urn}
                owners={summary.owners}
                canEdit={can.canEditOwners === true}
                onChanged={onChanged}
              />
            </dd>
          </div>
        ) : null}
        {summary.has.tags ? (
          <div className="entity-facet">
            <dt>Tags</dt>
            <dd>
              <TagsEditor
                urn={summary.urn}
                tags={summary.tags}
                canEdit={can.canEditTags === true}
                onChanged={onChanged}
              />
            </dd>
          </div>
        ) : null}
        {summary.has.terms ? (
          <div className="entity-facet">
            <dt>Glossary terms</dt>
            <dd>
              <TermsEditor
                urn={summary.urn}
                terms={summary.terms}
                canEdit={can.canEditGlossaryTerms === true}
                onChanged={onChanged}
              />
            </dd>
          </div>
        ) : null}
        {summary.has.domain ? (
          <div className="entity-facet">
            <dt>Domain</dt>
            <dd>
              <DomainEditor
                urn={summary.urn}
                domain={summary.domain}
                canEdit={can.canEditDomains === true}
                onChanged={onChanged}
              />
            </dd>
          </div>
        ) : null}
      </dl>
      {mayDeprecate || mayDelete ? (
        <div className="entity-actions" role="group" aria-label="Entity actions">
          {mayDeprecate ? (
            <DeprecationEditor
              urn={summary.urn}
              deprecation={summary.deprecation}
              canEdit
              onChanged={onChanged}
              showState={false}
            />
          ) : null}
          {mayDelete ? (
            <SoftDeleteControl
              urn={summary.urn}
              removed={summary.removed}
              canEdit
              onChanged={onChanged}
              showState={false}
            />
          ) : null}
        </div>
      ) : null}
    </header>
  );
}
