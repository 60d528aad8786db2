import { Link } from 'react-router';
import { simpleFieldPath, type ColumnEdge, type LineageGraph } from '../../../logic/lineage-graph';
import { sideSummary } from '../../../logic/lineage-labels';
import { entityPath, entityTypeLabel } from '../../../logic/urn';
import { CutMarks, ExpandButton } from './lineage-controls';

/**
 * The same graph as tables, readable without the canvas: the entities (with the same controls and cut marks), every
 * edge upstream → downstream, and the column-level edges when columns are on.
 */
export function LineageList({ graph, columns }: { readonly graph: LineageGraph; readonly columns: boolean }) {
  // Edges name their ends fully (two datasets may share a short name).
  const nameOf = new Map(
    graph.nodes.map((node) => [node.entity.urn, node.entity.qualifiedName ?? node.entity.name] as const),
  );
  const link = (urn: string) => (
    <Link to={entityPath(urn, 'lineage')} title={urn}>
      {nameOf.get(urn) ?? urn}
    </Link>
  );
  return (
    <div className="lineage-list">
      <h3 id="lineage-entities">Entities ({graph.nodes.length})</h3>
      <div className="table-wrap">
        <table className="table" aria-labelledby="lineage-entities">
          <thead>
            <tr>
              <th scope="col">Entity</th>
              <th scope="col">Type</th>
              <th scope="col">Platform</th>
              <th scope="col">Upstream</th>
              <th scope="col">Downstream</th>
              <th scope="col">Cut at a limit</th>
            </tr>
          </thead>
          <tbody>
            {graph.nodes.map((node) => (
              <tr key={node.entity.urn} className={node.isCenter ? 'lineage-row-center' : undefined}>
                <th scope="row">
                  <Link to={entityPath(node.entity.urn, 'lineage')} title={node.entity.urn}>
                    {node.entity.name}
                  </Link>
                  {node.isCenter ? <span className="muted"> (this entity)</span> : null}
                  {node.entity.qualifiedName === undefined ? null : (
                    <div className="muted lineage-list-qualified">{node.entity.qualifiedName}</div>
                  )}
                </th>
                <td>{entityTypeLabel(node.entity.type)}</td>
                <td>{node.entity.platform ?? '—'}</td>
                <td>
                  <ExpandButton node={node} direction="UPSTREAM" className="lineage-expand-inline" />{' '}
                  <span className="muted">{sideSummary('UPSTREAM', node.upstream)}</span>
                </td>
                <td>
                  <ExpandButton node={node} direction="DOWNSTREAM" className="lineage-expand-inline" />{' '}
                  <span className="muted">{sideSummary('DOWNSTREAM', node.downstream)}</span>
                </td>
                <td>{node.cuts.length === 0 ? '—' : <CutMarks node={node} className="lineage-cut-inline" />}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <h3 id="lineage-edges">Edges ({graph.edges.length})</h3>
      {graph.edges.length === 0 ? (
        <p className="muted">No edges are shown.</p>
      ) : (
        <div className="table-wrap">
          <table className="table" aria-labelledby="lineage-edges">
            <thead>
              <tr>
                <th scope="col">Upstream</th>
                <th scope="col">
                  <span className="visually-hidden">feeds</span>
                </th>
                <th scope="col">Downstream</th>
                <th scope="col">Relationship</th>
              </tr>
            </thead>
            <tbody>
              {graph.edges.map((edge) => (
                <tr key={edge.id} data-testid="lineage-edge">
                  <td>{link(edge.source)}</td>
                  <td aria-hidden="true">→</td>
                  <td>{link(edge.target)}</td>
                  <td>{edge.types.length === 0 ? <span className="muted">—</span> : edge.types.join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      {columns ? <ColumnEdges edges={graph.columnEdges} nameOf={nameOf} headingId="lineage-column-edges" /> : null}
    </div>
  );
}

/** Column-level edges as a table. */
function ColumnEdges({
  edges,
  nameOf,
  headingId,
}: {
  readonly edges: readonly ColumnEdge[];
  readonly nameOf: ReadonlyMap<string, string>;
  readonly headingId: string;
}) {
  const end = (item: ColumnEdge['source']) => (
    <>
      <Link to={entityPath(item.urn, 'lineage')} title={item.urn}>
        {nameOf.get(item.urn) ?? item.urn}
      </Link>
      {item.field === undefined ? (
        <span className="muted"> (whole dataset)</span>
      ) : (
        <>
          {'.'}
          <code title={item.field}>{simpleFieldPath(item.field)}</code>
        </>
      )}
    </>
  );
  return (
    <>
      <h3 id={headingId}>Column edges ({edges.length})</h3>
      {edges.length === 0 ? (
        <p className="muted">No column-level lineage between the entities shown.</p>
      ) : (
        <div className="table-wrap">
          <table className="table" aria-labelledby={headingId}>
            <thead>
              <tr>
                <th scope="col">Upstream column</th>
                <th scope="col">Downstream column</th>
                <th scope="col">Transformation</th>
              </tr>
            </thead>
            <tbody>
              {edges.map((edge) => (
                <tr key={edge.id} data-testid="lineage-column-edge">
                  <td>{end(edge.source)}</td>
                  <td>{end(edge.target)}</td>
                  <td>
                    {edge.transforms.length === 0 ? <span className="muted">—</span> : edge.transforms.join(', ')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
