import { Link } from 'react-router';
import { simpleFieldPath, type ColumnEdge, type LineageGraph } from '../../../logic/lineage-graph';
import { sideSummary } from '../../../logic/lineage-labels';
import { entityPath, entityTypeLabel } from '../../../logic/urn';

/** The selected entity's details over the graph: what it is, links to it, its counts, its column-level edges. */
export function LineageDetails({
  graph,
  selected,
  columns,
  onClose,
}: {
  readonly graph: LineageGraph;
  readonly selected: string | undefined;
  readonly columns: boolean;
  readonly onClose: () => void;
}) {
  const node = graph.nodes.find((candidate) => candidate.entity.urn === selected);
  if (node === undefined) return null;
  const entity = node.entity;
  const nameOf = new Map(
    graph.nodes.map((item) => [item.entity.urn, item.entity.qualifiedName ?? item.entity.name] as const),
  );
  const own = graph.columnEdges.filter((edge) => edge.source.urn === entity.urn || edge.target.urn === entity.urn);
  const end = (item: ColumnEdge['source']) =>
    `${nameOf.get(item.urn) ?? item.urn}${item.field === undefined ? ' (whole dataset)' : `.${simpleFieldPath(item.field)}`}`;
  return (
    <aside className="lineage-details" aria-labelledby="lineage-details-title">
      <div className="lineage-details-head">
        <h3 id="lineage-details-title">{entity.name}</h3>
        <button type="button" className="button button-small button-quiet" onClick={onClose}>
          Close
        </button>
      </div>
      <p className="lineage-details-kind">
        {[entityTypeLabel(entity.type), entity.platform].filter((part) => part !== undefined).join(' · ')}
        {node.isCenter ? ' · this entity' : ''}
      </p>
      {entity.qualifiedName === undefined ? null : <p className="lineage-details-qualified">{entity.qualifiedName}</p>}
      <p className="mono lineage-details-urn">{entity.urn}</p>
      <ul className="lineage-details-links">
        <li>
          <Link to={entityPath(entity.urn)}>Open {entity.name}</Link>
        </li>
        {node.isCenter ? null : (
          <li>
            <Link to={entityPath(entity.urn, 'lineage')}>Lineage around {entity.name}</Link>
          </li>
        )}
      </ul>
      <dl className="lineage-details-counts">
        <dt>Upstream</dt>
        <dd>{sideSummary('UPSTREAM', node.upstream)}</dd>
        <dt>Downstream</dt>
        <dd>{sideSummary('DOWNSTREAM', node.downstream)}</dd>
      </dl>
      {columns ? (
        <>
          <h4>Column lineage ({own.length})</h4>
          {own.length === 0 ? (
            <p className="muted">No column-level lineage to or from the entities shown.</p>
          ) : (
            <ul className="lineage-details-columns">
              {own.map((edge) => (
                <li key={edge.id}>
                  <code>{end(edge.source)}</code> <span aria-hidden="true">→</span>
                  <span className="visually-hidden">feeds</span> <code>{end(edge.target)}</code>
                  {edge.transforms.length === 0 ? null : <span className="muted"> ({edge.transforms.join(', ')})</span>}
                </li>
              ))}
            </ul>
          )}
        </>
      ) : null}
    </aside>
  );
}
