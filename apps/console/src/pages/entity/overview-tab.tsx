import { Link, useSearchParams } from 'react-router';
import { useGql } from '../../api/graphql';
import { DescriptionEditor, LinksEditor } from '../../curation';
import { EmptyState, EntityLink, ErrorNotice, Loading, Pager, Pill, Time } from '../../ui/components';
import { relatedSectionsOf, sectionStart, type RelatedSection } from '../../logic/entity-kinds';
import { labelOf, type EntitySummary } from '../../logic/entity-summary';
import { entityPath, entityTypeLabel, entityTypeOfGraphql } from '../../logic/urn';
import { RELATED_QUERY } from './queries';

/** How many related entities a section lists at a time. */
const PAGE = 20;

/**
 * The overview: the documentation (Markdown), the facts of the entity's type, its related entities (a chart's
 * dashboards, a group's members, a tag's entities…), its links and its custom properties.
 */
export function OverviewTab({
  summary,
  onChanged,
}: {
  readonly summary: EntitySummary;
  readonly onChanged: () => void;
}) {
  const sections = relatedSectionsOf(summary.entityType);
  return (
    <div className="entity-overview">
      <div className="entity-overview-main">
        <section aria-labelledby="documentation-heading" className="entity-section">
          <h2 id="documentation-heading">Documentation</h2>
          <DescriptionEditor
            urn={summary.urn}
            description={summary.description ?? ''}
            canEdit={summary.privileges.canEditDescription === true}
            onChanged={onChanged}
          />
        </section>
        {summary.aspectNames === undefined ? null : (
          <section aria-labelledby="aspects-heading" className="entity-section">
            <h2 id="aspects-heading">Aspects</h2>
            {summary.aspectNames.length === 0 ? (
              <EmptyState>No aspect is stored.</EmptyState>
            ) : (
              <>
                <ul className="pills entity-aspect-names">
                  {summary.aspectNames.map((name) => (
                    <li key={name}>
                      <Pill>
                        <span className="mono">{name}</span>
                      </Pill>
                    </li>
                  ))}
                </ul>
                <p>
                  <Link to={entityPath(summary.urn, 'raw')}>See every aspect as stored</Link>
                </p>
              </>
            )}
          </section>
        )}
        {sections.map((section) => (
          <RelatedList key={section.id} urn={summary.urn} section={section} />
        ))}
      </div>
      <aside className="entity-overview-side" aria-label="About">
        {summary.facts.length === 0 ? null : (
          <section aria-labelledby="details-heading" className="entity-section">
            <h2 id="details-heading">Details</h2>
            <dl className="entity-facts">
              {summary.facts.map((fact) => (
                <div key={fact.label}>
                  <dt>{fact.label}</dt>
                  <dd>
                    {fact.entity !== undefined ? (
                      <EntityLink urn={fact.entity.urn} name={fact.entity.name} />
                    ) : fact.time !== undefined ? (
                      <Time millis={fact.time} />
                    ) : (
                      fact.value
                    )}
                  </dd>
                </div>
              ))}
            </dl>
          </section>
        )}
        {summary.has.links ? (
          <section aria-labelledby="links-heading" className="entity-section">
            <h2 id="links-heading">Links</h2>
            <LinksEditor
              urn={summary.urn}
              links={summary.links}
              canEdit={summary.privileges.canEditLinks === true}
              onChanged={onChanged}
            />
          </section>
        ) : null}
        {summary.customProperties.length === 0 ? null : (
          <section aria-labelledby="properties-heading" className="entity-section">
            <h2 id="properties-heading">Properties</h2>
            <div className="table-wrap">
              <table className="table entity-properties">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Value</th>
                  </tr>
                </thead>
                <tbody>
                  {summary.customProperties.map((property) => (
                    <tr key={property.key}>
                      <th scope="row" className="mono">
                        {property.key}
                      </th>
                      <td>{property.value}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        )}
      </aside>
    </div>
  );
}

interface RelatedAnswer {
  entity: {
    urn: string;
    relationships: {
      start: number | null;
      count: number | null;
      total: number | null;
      relationships: { type: string; entity: ({ urn: string; type: string } & Record<string, unknown>) | null }[];
    } | null;
  } | null;
}

/** One list of related entities, a page at a time (the page in the URL, under the section's id). */
function RelatedList({ urn, section }: { readonly urn: string; readonly section: RelatedSection }) {
  const [params, setParams] = useSearchParams();
  const start = sectionStart(params.get(section.id));
  const read = useGql<RelatedAnswer>(RELATED_QUERY, {
    urn,
    input: { types: section.types, direction: section.direction, start, count: PAGE },
  });
  const headingId = `related-${section.id}`;
  const result = read.data?.entity?.relationships;
  const rows = result?.relationships ?? [];
  const total = result?.total ?? rows.length;
  const onPage = (next: number) => {
    setParams(
      (current) => {
        const updated = new URLSearchParams(current);
        if (next === 0) updated.delete(section.id);
        else updated.set(section.id, String(next));
        return updated;
      },
      { preventScrollReset: true },
    );
  };
  return (
    <section aria-labelledby={headingId} className="entity-section">
      <h2 id={headingId}>
        {section.title}
        {result === undefined || result === null ? null : (
          <span className="muted entity-count"> ({total.toLocaleString()})</span>
        )}
      </h2>
      {read.error !== undefined && read.error !== null ? (
        <ErrorNotice error={read.error} retry={read.refetch} />
      ) : read.data === undefined ? (
        <Loading what={`Loading ${section.title.toLowerCase()}`} />
      ) : rows.length === 0 ? (
        <EmptyState>{start > 0 ? 'Nothing on this page.' : section.empty}</EmptyState>
      ) : (
        <>
          <ul className="entity-related">
            {rows.map((row, index) => {
              const label = labelOf(row.entity);
              if (label === undefined || row.entity === null) return null;
              return (
                <li key={`${label.urn}-${row.type}-${index}`}>
                  <EntityLink urn={label.urn} name={label.name} />
                  <span className="muted"> · {entityTypeLabel(entityTypeOfGraphql(row.entity.type))}</span>
                </li>
              );
            })}
          </ul>
          <Pager start={start} count={PAGE} total={total} onPage={onPage} />
        </>
      )}
    </section>
  );
}
