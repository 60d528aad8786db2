import {
  applyNodeChanges,
  Background,
  Controls,
  Handle,
  MarkerType,
  MiniMap,
  Position,
  ReactFlow,
  ReactFlowProvider,
  useNodesInitialized,
  useReactFlow,
  type Edge,
  type Node,
  type NodeChange,
  type NodeProps,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { memo, useCallback, useEffect, useMemo, useState } from 'react';
import {
  layoutInput,
  layoutLineage,
  NODE_WIDTH,
  simpleFieldPath,
  type LineageGraph,
  type LineageNode,
} from '../../../logic/lineage-graph';
import { entityTypeLabel } from '../../../logic/urn';
import { CutMarks, ExpandButton, useLineageActions } from './lineage-controls';

type LineageFlowNode = Node<{ node: LineageNode; columns: boolean }, 'lineage'>;

const NODE_TYPES = { lineage: memo(LineageNodeCard) };

/** How the view fits the graph: all of it when its text stays readable, else as much as fits at that size. */
const FIT = { padding: 0.12, maxZoom: 1, minZoom: 0.45 };

/** The handle ids of a node's own edges and of its columns' edges. */
const ENTITY_IN = 'entity-in';
const ENTITY_OUT = 'entity-out';
const columnIn = (field: string) => `in:${field}`;
const columnOut = (field: string) => `out:${field}`;

/**
 * The lineage graph on a canvas (React Flow), laid out left to right by dagre: pan with the mouse or the controls,
 * zoom, and every entity a card with its own buttons (select, expand each way, show more), reachable with Tab.
 */
export function LineageCanvas({ graph, columns }: { readonly graph: LineageGraph; readonly columns: boolean }) {
  return (
    <ReactFlowProvider>
      <Canvas graph={graph} columns={columns} />
    </ReactFlowProvider>
  );
}

function Canvas({ graph, columns }: { readonly graph: LineageGraph; readonly columns: boolean }) {
  const { selected } = useLineageActions();
  const layout = useMemo(() => {
    const input = layoutInput(graph, columns);
    return { positions: layoutLineage(input), heights: new Map(input.nodes.map((item) => [item.id, item.height])) };
  }, [graph, columns]);
  const names = useMemo(() => new Map(graph.nodes.map((node) => [node.entity.urn, node.entity.name])), [graph]);

  const nodes = useMemo<LineageFlowNode[]>(
    () =>
      graph.nodes.map((node) => ({
        id: node.entity.urn,
        type: 'lineage',
        position: layout.positions.get(node.entity.urn) ?? { x: 0, y: 0 },
        // The size the layout gave it (the card is drawn at it): the mini map and fitting the view use it.
        width: NODE_WIDTH,
        height: layout.heights.get(node.entity.urn),
        data: { node, columns },
        ariaRole: 'group',
        ariaLabel: node.entity.name,
      })),
    [graph, layout, columns],
  );

  const edges = useMemo<Edge[]>(() => {
    const touches = (source: string, target: string) =>
      selected !== undefined && (source === selected || target === selected);
    const entityEdges: Edge[] = graph.edges.map((edge) => ({
      id: edge.id,
      source: edge.source,
      target: edge.target,
      sourceHandle: ENTITY_OUT,
      targetHandle: ENTITY_IN,
      markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16 },
      className: touches(edge.source, edge.target) ? 'lineage-edge lineage-edge-selected' : 'lineage-edge',
      ariaLabel: `${names.get(edge.source) ?? edge.source} feeds ${names.get(edge.target) ?? edge.target}`,
    }));
    if (!columns) return entityEdges;
    // Column edges between columns drawn in their nodes (a node draws at most MAX_NODE_COLUMNS; the list has all).
    const drawn = new Map(graph.nodes.map((node) => [node.entity.urn, new Set(node.columns)]));
    const columnEdges: Edge[] = graph.columnEdges.flatMap((edge) => {
      const sourceField = edge.source.field;
      const targetField = edge.target.field;
      if (sourceField !== undefined && drawn.get(edge.source.urn)?.has(sourceField) !== true) return [];
      if (targetField !== undefined && drawn.get(edge.target.urn)?.has(targetField) !== true) return [];
      const from =
        sourceField === undefined
          ? names.get(edge.source.urn)
          : `${names.get(edge.source.urn) ?? ''}.${simpleFieldPath(sourceField)}`;
      const to =
        targetField === undefined
          ? names.get(edge.target.urn)
          : `${names.get(edge.target.urn) ?? ''}.${simpleFieldPath(targetField)}`;
      return [
        {
          id: edge.id,
          source: edge.source.urn,
          target: edge.target.urn,
          sourceHandle: sourceField === undefined ? ENTITY_OUT : columnOut(sourceField),
          targetHandle: targetField === undefined ? ENTITY_IN : columnIn(targetField),
          markerEnd: { type: MarkerType.Arrow, width: 14, height: 14 },
          className: touches(edge.source.urn, edge.target.urn)
            ? 'lineage-column-edge lineage-edge-selected'
            : 'lineage-column-edge',
          ariaLabel: `${from ?? ''} feeds ${to ?? ''}${edge.transforms.length > 0 ? ` (${edge.transforms.join(', ')})` : ''}`,
        },
      ];
    });
    return [...entityEdges, ...columnEdges];
  }, [graph, columns, names, selected]);

  // React Flow's own changes (the sizes it measures) are kept, as its controlled mode expects: fitting the view waits
  // for them. A new graph replaces the nodes.
  const [flowNodes, setFlowNodes] = useState(nodes);
  useEffect(() => {
    setFlowNodes(nodes);
  }, [nodes]);
  const onNodesChange = useCallback((changes: NodeChange<LineageFlowNode>[]) => {
    setFlowNodes((current) => applyNodeChanges(changes, current));
  }, []);

  return (
    <div className="lineage-canvas">
      <ReactFlow
        nodes={flowNodes}
        onNodesChange={onNodesChange}
        edges={edges}
        nodeTypes={NODE_TYPES}
        nodesDraggable={false}
        nodesConnectable={false}
        nodesFocusable={false}
        edgesFocusable={false}
        elementsSelectable={false}
        zoomOnDoubleClick={false}
        deleteKeyCode={null}
        minZoom={0.05}
        maxZoom={2}
        fitView
        fitViewOptions={FIT}
        aria-label="Lineage graph"
        ariaLabelConfig={{
          'controls.ariaLabel': 'Graph controls',
          'controls.zoomIn.ariaLabel': 'Zoom in',
          'controls.zoomOut.ariaLabel': 'Zoom out',
          'controls.fitView.ariaLabel': 'Fit the graph in view',
          'minimap.ariaLabel': 'Overview of the lineage graph',
        }}
      >
        <FitOnGrowth count={graph.nodes.length} columns={columns} />
        <Background gap={20} size={1} />
        <Controls showInteractive={false} />
        <MiniMap
          pannable
          zoomable
          nodeColor={(node) => ((node.data as { node?: LineageNode }).node?.isCenter === true ? '#0b57d0' : '#b8c4d6')}
        />
      </ReactFlow>
    </div>
  );
}

/** Fits the graph in view when entities are added or removed, or columns change the nodes' sizes. */
function FitOnGrowth({ count, columns }: { readonly count: number; readonly columns: boolean }) {
  const flow = useReactFlow();
  const initialized = useNodesInitialized();
  useEffect(() => {
    if (!initialized) return undefined;
    // After React Flow has taken the new nodes in (its store updates after this render).
    const timer = setTimeout(() => {
      void flow.fitView({ ...FIT, duration: 200 });
    }, 30);
    return () => {
      clearTimeout(timer);
    };
  }, [count, columns, initialized, flow]);
  return null;
}

/** One entity on the canvas: its kind, platform and name (a button that selects it), its controls, cuts and columns. */
function LineageNodeCard({ data }: NodeProps<LineageFlowNode>) {
  const { node, columns } = data;
  const actions = useLineageActions();
  const entity = node.entity;
  const selected = actions.selected === entity.urn;
  const kind = [entityTypeLabel(entity.type), entity.platform].filter((part) => part !== undefined).join(' · ');
  return (
    <div
      className={`lineage-node${node.isCenter ? ' lineage-node-center' : ''}${selected ? ' lineage-node-selected' : ''}`}
      data-testid="lineage-node"
      data-urn={entity.urn}
    >
      <Handle id={ENTITY_IN} type="target" position={Position.Left} isConnectable={false} className="lineage-handle" />
      <Handle
        id={ENTITY_OUT}
        type="source"
        position={Position.Right}
        isConnectable={false}
        className="lineage-handle"
      />
      <div className="lineage-node-head">
        <ExpandButton node={node} direction="UPSTREAM" className="lineage-expand-up" />
        <button
          type="button"
          className="lineage-node-main nodrag"
          aria-pressed={selected}
          title={`${entity.urn}\nDouble-click: lineage around it`}
          onClick={() => {
            actions.select(entity.urn);
          }}
          onDoubleClick={() => {
            actions.open(entity.urn);
          }}
        >
          <span className="lineage-node-kind">
            {node.isCenter ? <span className="lineage-node-here">This entity · </span> : null}
            {kind}
          </span>
          <span className="lineage-node-name">{entity.name}</span>
          {entity.qualifiedName === undefined ? null : (
            <span className="lineage-node-qualified">{entity.qualifiedName}</span>
          )}
        </button>
        <ExpandButton node={node} direction="DOWNSTREAM" className="lineage-expand-down" />
      </div>
      <CutMarks node={node} />
      {columns && (node.columns.length > 0 || node.hiddenColumns > 0) ? (
        <ul className="lineage-columns" aria-label={`Columns of ${entity.name} with column-level lineage`}>
          {node.columns.map((field) => (
            <li key={field} className="lineage-column" title={field}>
              <Handle
                id={columnIn(field)}
                type="target"
                position={Position.Left}
                isConnectable={false}
                className="lineage-column-handle"
              />
              <span>{simpleFieldPath(field)}</span>
              <Handle
                id={columnOut(field)}
                type="source"
                position={Position.Right}
                isConnectable={false}
                className="lineage-column-handle"
              />
            </li>
          ))}
          {node.hiddenColumns > 0 ? (
            <li className="lineage-column lineage-column-more">
              +{node.hiddenColumns} more columns (see the list view)
            </li>
          ) : null}
        </ul>
      ) : null}
    </div>
  );
}
