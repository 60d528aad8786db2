import {
  buildFieldTree,
  countFields,
  fieldPathParts,
  filterFieldTree,
  nodeMatchesText,
  parentIds,
  simplifyFieldPath,
  visibleFieldRows,
  type FieldNode,
} from './schema-fields';

interface Field {
  readonly fieldPath: string;
  readonly description?: string;
}

/** A tree as indented lines `path` (groups marked `(group)`), for compact expectations. */
function outline(nodes: readonly FieldNode<Field>[], indent = ''): string[] {
  return nodes.flatMap((node) => [
    `${indent}${node.path}${node.field === undefined ? ' (group)' : ''}${node.isKey ? ' [key]' : ''}`,
    ...outline(node.children, `${indent}  `),
  ]);
}

describe('fieldPathParts and simplifyFieldPath', () => {
  it('reads v1 paths as dotted names', () => {
    expect(fieldPathParts('address.city')).toEqual({ names: ['address', 'city'], isKey: false });
    expect(simplifyFieldPath('id')).toBe('id');
  });

  it('reads v2 paths: names between bracketed tokens, the version token holding a dot', () => {
    expect(fieldPathParts('[version=2.0].[type=struct].address.[type=string].city')).toEqual({
      names: ['address', 'city'],
      isKey: false,
      pathType: 'string',
    });
    expect(simplifyFieldPath('[version=2.0].[type=struct].address.[type=string].city')).toBe('address.city');
    expect(simplifyFieldPath('[version=2.0].[type=Order].[type=array].[type=Item].items.[type=long].quantity')).toBe(
      'items.quantity',
    );
  });

  it('marks key-schema fields', () => {
    expect(fieldPathParts('[version=2.0].[key=True].[type=KeyRecord].[type=string].id')).toEqual({
      names: ['id'],
      isKey: true,
      pathType: 'string',
    });
  });

  it('keeps a path without names as it is', () => {
    expect(simplifyFieldPath('[version=2.0].[type=string]')).toBe('[version=2.0].[type=string]');
  });
});

describe('buildFieldTree', () => {
  it('nests v2 fields under their parents, in the schema order', () => {
    const tree = buildFieldTree<Field>([
      { fieldPath: '[version=2.0].[type=struct].id' },
      { fieldPath: '[version=2.0].[type=struct].address' },
      { fieldPath: '[version=2.0].[type=struct].address.[type=string].city' },
      { fieldPath: '[version=2.0].[type=struct].address.[type=string].street' },
      { fieldPath: '[version=2.0].[type=struct].address.[type=struct].geo' },
      { fieldPath: '[version=2.0].[type=struct].address.[type=struct].geo.[type=double].lat' },
      { fieldPath: '[version=2.0].[type=struct].total' },
    ]);
    expect(outline(tree)).toEqual([
      'id',
      'address',
      '  address.city',
      '  address.street',
      '  address.geo',
      '    address.geo.lat',
      'total',
    ]);
    expect(tree[1]?.children[2]?.children[0]?.depth).toBe(2);
    expect(tree[1]?.children[0]?.name).toBe('city');
    expect(countFields(tree)).toBe(7);
  });

  it('nests v1 dotted paths the same way', () => {
    const tree = buildFieldTree<Field>([
      { fieldPath: 'customer' },
      { fieldPath: 'customer.name' },
      { fieldPath: 'amount' },
    ]);
    expect(outline(tree)).toEqual(['customer', '  customer.name', 'amount']);
  });

  it('makes a group for a parent the schema does not list, and lets the field take its place if it comes later', () => {
    const tree = buildFieldTree<Field>([
      { fieldPath: 'a.b.c' },
      { fieldPath: 'a', description: 'the a' },
      { fieldPath: 'x.y' },
    ]);
    expect(outline(tree)).toEqual(['a', '  a.b (group)', '    a.b.c', 'x (group)', '  x.y']);
    expect(tree[0]?.field?.description).toBe('the a');
    expect(tree[0]?.id).toBe('a');
    expect(tree[1]?.id).toBe('group:value:x');
    expect(countFields(tree)).toBe(3);
  });

  it('keeps the key schema apart from the value schema', () => {
    const tree = buildFieldTree<Field>([
      { fieldPath: '[version=2.0].[key=True].[type=Key].[type=string].id' },
      { fieldPath: '[version=2.0].[type=Value].[type=string].id' },
    ]);
    expect(outline(tree)).toEqual(['id [key]', 'id']);
    expect(new Set(tree.map((node) => node.id)).size).toBe(2);
  });

  it('keeps two fields of one readable path (union members) side by side', () => {
    const tree = buildFieldTree<Field>([
      { fieldPath: '[version=2.0].[type=union].[type=A].value' },
      { fieldPath: '[version=2.0].[type=union].[type=B].value' },
    ]);
    expect(tree.map((node) => node.id)).toEqual([
      '[version=2.0].[type=union].[type=A].value',
      '[version=2.0].[type=union].[type=B].value',
    ]);
  });
});

describe('filtering and showing the tree', () => {
  const tree = buildFieldTree<Field>([
    { fieldPath: 'id', description: 'primary key' },
    { fieldPath: 'address' },
    { fieldPath: 'address.city', description: 'where' },
    { fieldPath: 'address.zip' },
    { fieldPath: 'customer' },
    { fieldPath: 'customer.email', description: 'PII' },
  ]);

  it('keeps matching nodes with their ancestors, and a matching parent with all its children', () => {
    const byText = (query: string) =>
      outline(filterFieldTree(tree, (node) => nodeMatchesText(node, query, [node.field?.description])));
    expect(byText('city')).toEqual(['address', '  address.city']);
    expect(byText('pii')).toEqual(['customer', '  customer.email']);
    expect(byText('address')).toEqual(['address', '  address.city', '  address.zip']);
    expect(byText('nothing')).toEqual([]);
    expect(byText('  ')).toEqual(outline(tree));
  });

  it('shows children only of expanded nodes, or of all when asked', () => {
    expect(visibleFieldRows(tree, new Set()).map((row) => row.node.path)).toEqual(['id', 'address', 'customer']);
    const opened = visibleFieldRows(tree, new Set(['address']));
    expect(opened.map((row) => `${row.node.path}${row.expanded ? ' open' : ''}${row.hasChildren ? ' +' : ''}`)).toEqual(
      ['id', 'address open +', 'address.city', 'address.zip', 'customer +'],
    );
    expect(visibleFieldRows(tree, new Set(), true)).toHaveLength(6);
    expect(parentIds(tree)).toEqual(['address', 'customer']);
  });
});
