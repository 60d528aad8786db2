import { useId, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useGql } from '../../api/graphql';
import { FieldDescriptionEditor, TagsEditor, TermsEditor } from '../../curation';
import { EmptyState, EntityLink, ErrorNotice, Loading, Pager, Pill } from '../../ui/components';
import {
  schemaFieldViews,
  searchableTextsOf,
  type GqlEditableField,
  type GqlSchemaField,
  type SchemaFieldView,
} from '../../logic/entity-schema';
import { sectionStart } from '../../logic/entity-kinds';
import {
  buildFieldTree,
  countFields,
  filterFieldTree,
  nodeMatchesText,
  parentIds,
  visibleFieldRows,
  type FieldNode,
} from '../../logic/schema-fields';
import { SCHEMA_QUERY } from './queries';

/** How many rows of the field tree a page shows. */
const PAGE = 100;

interface SchemaAnswer {
  dataset: {
    urn: string;
    privileges: {
      canEditSchemaFieldDescription?: boolean | null;
      canEditSchemaFieldTags?: boolean | null;
      canEditSchemaFieldGlossaryTerms?: boolean | null;
    } | null;
    schemaMetadata: {
      name: string;
      version: number;
      platformUrn: string;
      primaryKeys: string[] | null;
      fields: GqlSchemaField[];
    } | null;
    editableSchemaMetadata: { editableSchemaFieldInfo: GqlEditableField[] } | null;
  } | null;
}

/**
 * A dataset's schema: its fields as a tree (nested fields open under their parent), each with its type, whether it
 * is a key and nullable, its description, tags and terms — editable per field — and a filter (in the URL).
 */
export function SchemaTab({ urn }: { readonly urn: string }) {
  const read = useGql<SchemaAnswer>(SCHEMA_QUERY, { urn });
  const [params, setParams] = useSearchParams();
  const filter = params.get('filter') ?? '';
  const start = sectionStart(params.get('start'));
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const filterId = useId();

  const dataset = read.data?.dataset;
  const tree = useMemo(() => {
    const schema = dataset?.schemaMetadata;
    if (schema === undefined || schema === null) return [];
    const views = schemaFieldViews(
      schema.fields,
      dataset?.editableSchemaMetadata?.editableSchemaFieldInfo ?? [],
      schema.primaryKeys ?? [],
    );
    return buildFieldTree<SchemaFieldView>(views);
  }, [dataset]);
  const shown = useMemo(
    () =>
      filter.trim() === ''
        ? tree
        : filterFieldTree(tree, (node) =>
            nodeMatchesText(node, filter, node.field === undefined ? [] : searchableTextsOf(node.field)),
          ),
    [tree, filter],
  );
  const rows = useMemo(() => visibleFieldRows(shown, expanded, filter.trim() !== ''), [shown, expanded, filter]);

  if (read.error !== undefined && read.error !== null && read.data === undefined) {
    return <ErrorNotice error={read.error} retry={read.refetch} />;
  }
  if (read.data === undefined) return <Loading what="Loading the schema" />;
  const schema = dataset?.schemaMetadata;
  if (schema === undefined || schema === null) {
    return (
      <EmptyState>
        <p>No schema is recorded for this dataset.</p>
      </EmptyState>
    );
  }
  const can = dataset?.privileges ?? {};
  const setParam = (name: string, value: string | undefined) => {
    setParams(
      (current) => {
        const updated = new URLSearchParams(current);
        if (value === undefined || value === '') updated.delete(name);
        else updated.set(name, value);
        if (name !== 'start') updated.delete('start');
        return updated;
      },
      { replace: name === 'filter', preventScrollReset: true },
    );
  };
  const toggle = (id: string) => {
    setExpanded((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  };
  const page = rows.slice(start, start + PAGE);
  const total = countFields(tree);
  return (
    <div className="entity-schema">
      <h2 className="visually-hidden">Schema</h2>
      <div className="form-row schema-tools">
        <label htmlFor={filterId}>Filter fields</label>
        <input
          id={filterId}
          type="search"
          value={filter}
          placeholder="Name, type, description, tag…"
          onChange={(event) => {
            setParam('filter', event.target.value);
          }}
        />
        <span className="muted" role="status">
          {filter.trim() === ''
            ? `${total.toLocaleString()} fields`
            : `${countFields(shown).toLocaleString()} of ${total.toLocaleString()} fields match`}
        </span>
        {filter.trim() === '' && parentIds(tree).length > 0 ? (
          <>
            <button
              type="button"
              className="button button-small"
              onClick={() => {
                setExpanded(new Set(parentIds(tree)));
              }}
            >
              Expand all
            </button>
            <button
              type="button"
              className="button button-small"
              onClick={() => {
                setExpanded(new Set());
              }}
            >
              Collapse all
            </button>
          </>
        ) : null}
      </div>
      {read.error !== undefined && read.error !== null ? <ErrorNotice error={read.error} retry={read.refetch} /> : null}
      {rows.length === 0 ? (
        <EmptyState>No field matches “{filter}”.</EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table schema-table">
            <caption className="visually-hidden">Fields of {schema.name}</caption>
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Type</th>
                <th scope="col">Description</th>
                <th scope="col">Tags</th>
                <th scope="col">Glossary terms</th>
              </tr>
            </thead>
            <tbody>
              {page.map((row) => (
                <FieldRow
                  key={row.node.id}
                  urn={urn}
                  node={row.node}
                  hasChildren={row.hasChildren}
                  expanded={row.expanded}
                  canToggle={filter.trim() === ''}
                  onToggle={() => {
                    toggle(row.node.id);
                  }}
                  can={can}
                  onChanged={read.refetch}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager
        start={start}
        count={PAGE}
        total={rows.length}
        onPage={(next) => {
          setParam('start', next === 0 ? undefined : String(next));
        }}
      />
    </div>
  );
}

function FieldRow({
  urn,
  node,
  hasChildren,
  expanded,
  canToggle,
  onToggle,
  can,
  onChanged,
}: {
  readonly urn: string;
  readonly node: FieldNode<SchemaFieldView>;
  readonly hasChildren: boolean;
  readonly expanded: boolean;
  readonly canToggle: boolean;
  readonly onToggle: () => void;
  readonly can: NonNullable<NonNullable<SchemaAnswer['dataset']>['privileges']>;
  readonly onChanged: () => void;
}) {
  const field = node.field;
  return (
    <tr
      data-testid="schema-field"
      data-field-path={node.id}
      className={field === undefined ? 'schema-group' : undefined}
    >
      <th scope="row" className="schema-name">
        <div className="schema-name-inner" style={{ paddingLeft: `${node.depth * 1.25}rem` }}>
          {hasChildren && canToggle ? (
            <button
              type="button"
              className="button button-quiet button-small schema-toggle"
              aria-expanded={expanded}
              aria-label={`${expanded ? 'Collapse' : 'Expand'} ${node.path}`}
              onClick={onToggle}
            ></button>
          ) : (
            <span className="schema-toggle-space" aria-hidden="true" />
          )}
          <span className="schema-field-text">
            <span className="mono schema-field-name" title={node.id}>
              {node.depth === 0 ? node.path : node.name}
            </span>
            {node.depth > 0 ? <span className="mono muted schema-field-path">{node.path}</span> : null}
          </span>
        </div>
        <div className="pills schema-flags">
          {node.isKey ? <Pill>Key schema</Pill> : null}
          {field?.isPartOfKey === true ? <Pill kind="ok">Primary key</Pill> : null}
          {field?.isPartitioningKey === true ? <Pill>Partition key</Pill> : null}
          {field === undefined ? null : field.nullable ? (
            <span className="muted schema-nullable">nullable</span>
          ) : (
            <span className="schema-nullable">not null</span>
          )}
        </div>
      </th>
      <td>
        {field === undefined ? (
          <span className="muted">—</span>
        ) : (
          <>
            <span>{field.type ?? node.pathType ?? '—'}</span>
            {field.nativeDataType === undefined ? null : (
              <span className="mono muted schema-native"> {field.nativeDataType}</span>
            )}
          </>
        )}
      </td>
      <td className="schema-description">
        {field === undefined ? null : (
          <FieldDescriptionEditor
            urn={urn}
            fieldPath={field.fieldPath}
            description={field.description ?? ''}
            canEdit={can.canEditSchemaFieldDescription === true}
            onChanged={onChanged}
          />
        )}
      </td>
      <td>
        {field === undefined ? null : (
          <>
            <IngestedLabels labels={field.ingestedTags} kind="tag" />
            <TagsEditor
              urn={urn}
              tags={field.tags}
              subResource={field.fieldPath}
              canEdit={can.canEditSchemaFieldTags === true}
              onChanged={onChanged}
            />
          </>
        )}
      </td>
      <td>
        {field === undefined ? null : (
          <>
            <IngestedLabels labels={field.ingestedTerms} kind="term" />
            <TermsEditor
              urn={urn}
              terms={field.terms}
              subResource={field.fieldPath}
              canEdit={can.canEditSchemaFieldGlossaryTerms === true}
              onChanged={onChanged}
            />
          </>
        )}
      </td>
    </tr>
  );
}

/** The tags or terms ingestion wrote on a field: shown, not edited here (the next ingestion would write them again). */
function IngestedLabels({
  labels,
  kind,
}: {
  readonly labels: SchemaFieldView['ingestedTags'];
  readonly kind: 'tag' | 'term';
}) {
  if (labels.length === 0) return null;
  return (
    <ul className="pills schema-ingested" aria-label={`${kind === 'tag' ? 'Tags' : 'Terms'} from ingestion`}>
      {labels.map((label) => (
        <li key={label.urn}>
          <Pill kind={kind} title="Written by ingestion">
            <EntityLink urn={label.urn} name={label.name} />
          </Pill>
        </li>
      ))}
    </ul>
  );
}
