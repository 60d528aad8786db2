/**
 * A dataset's schema fields as a tree. Fields are named by DataHub field paths: plain dotted names (v1,
 * `address.city`) or v2 paths where bracketed tokens (`[version=2.0]`, `[type=struct]`, `[key=True]`) stand between
 * the names (`[version=2.0].[type=struct].address.[type=string].city`). The names alone make the readable path
 * (`address.city`), and a field nests under the field whose path is its own less the last name; a parent that the
 * schema does not list is made a group of its own. Fields of a key schema (`[key=True]`) are a tree apart from the
 * value's. Pure functions (unit-tested in schema-fields.spec.ts).
 */

/** What a field path says. */
export interface FieldPathParts {
  /** The field names along the path, outermost first. */
  readonly names: readonly string[];
  /** Whether the field belongs to the key schema (`[key=True]`). */
  readonly isKey: boolean;
  /** The type the path gives the field itself (the last `[type=…]` before its name), when v2 says it. */
  readonly pathType?: string;
}

/** The tokens of a path: split at dots outside brackets (`[version=2.0]` holds one). */
function tokensOf(fieldPath: string): string[] {
  const tokens: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of fieldPath) {
    if (char === '[') depth += 1;
    if (char === ']') depth = Math.max(0, depth - 1);
    if (char === '.' && depth === 0) {
      tokens.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  tokens.push(current);
  return tokens;
}

/** The names, key-ness and type of a v1 or v2 field path. */
export function fieldPathParts(fieldPath: string): FieldPathParts {
  const names: string[] = [];
  let isKey = false;
  let lastType: string | undefined;
  let pathType: string | undefined;
  for (const token of tokensOf(fieldPath)) {
    const bracket = /^\[([^=\]]+)=([^\]]*)\]$/.exec(token);
    if (bracket !== null) {
      const [, name, value] = bracket;
      if (name === 'key' && value?.toLowerCase() === 'true') isKey = true;
      if (name === 'type') lastType = value;
      continue;
    }
    if (token === '') continue;
    names.push(token);
    pathType = lastType;
    lastType = undefined;
  }
  return pathType === undefined ? { names, isKey } : { names, isKey, pathType };
}

/** The readable path of a field: its names joined by dots (`address.city`). */
export function simplifyFieldPath(fieldPath: string): string {
  const parts = fieldPathParts(fieldPath);
  return parts.names.length === 0 ? fieldPath : parts.names.join('.');
}

/** One node of the field tree: a field of the schema, or a group standing for a parent the schema does not list. */
export interface FieldNode<F> {
  /** Unique in the tree: the field's own path, or `group:<key|value>:<readable path>` for a group. */
  readonly id: string;
  /** The last name on the path. */
  readonly name: string;
  /** The readable path (`address.city`). */
  readonly path: string;
  readonly isKey: boolean;
  readonly depth: number;
  /** The field, absent for a group. */
  readonly field?: F;
  readonly pathType?: string;
  readonly children: FieldNode<F>[];
}

interface MutableNode<F> {
  id: string;
  name: string;
  path: string;
  isKey: boolean;
  depth: number;
  field?: F;
  pathType?: string;
  children: MutableNode<F>[];
}

/** The tree of a schema's fields, in the schema's order (key fields first when the schema lists them first). */
export function buildFieldTree<F extends { readonly fieldPath: string }>(fields: readonly F[]): FieldNode<F>[] {
  const roots: MutableNode<F>[] = [];
  const byPath = new Map<string, MutableNode<F>>();
  const slot = (isKey: boolean, names: readonly string[]) => `${isKey ? 'key' : 'value'}:${names.join('.')}`;

  const attach = (node: MutableNode<F>, isKey: boolean, names: readonly string[]): void => {
    if (names.length <= 1) {
      roots.push(node);
      return;
    }
    parentOf(isKey, names.slice(0, -1)).children.push(node);
  };

  // The node a path names, made a group when the schema has no field there (yet).
  const parentOf = (isKey: boolean, names: readonly string[]): MutableNode<F> => {
    const known = byPath.get(slot(isKey, names));
    if (known !== undefined) return known;
    const group: MutableNode<F> = {
      id: `group:${slot(isKey, names)}`,
      name: names[names.length - 1] ?? '',
      path: names.join('.'),
      isKey,
      depth: names.length - 1,
      children: [],
    };
    byPath.set(slot(isKey, names), group);
    attach(group, isKey, names);
    return group;
  };

  for (const field of fields) {
    const parts = fieldPathParts(field.fieldPath);
    const names = parts.names.length === 0 ? [field.fieldPath] : parts.names;
    const key = slot(parts.isKey, names);
    const existing = byPath.get(key);
    if (existing !== undefined && existing.field === undefined) {
      // A group made for this path before its field came: the field takes the group's place.
      existing.field = field;
      existing.id = field.fieldPath;
      if (parts.pathType !== undefined) existing.pathType = parts.pathType;
      continue;
    }
    const node: MutableNode<F> = {
      id: field.fieldPath,
      name: names[names.length - 1] ?? field.fieldPath,
      path: names.join('.'),
      isKey: parts.isKey,
      depth: names.length - 1,
      field,
      children: [],
    };
    if (parts.pathType !== undefined) node.pathType = parts.pathType;
    // Two fields of one readable path (members of a union): the first is the parent of what nests under it.
    if (existing === undefined) byPath.set(key, node);
    attach(node, parts.isKey, names);
  }
  return roots;
}

/**
 * The tree with only what matches: a node is kept when it matches (with all below it) or when something below it
 * matches (with only those). `matches` is asked of every node.
 */
export function filterFieldTree<F>(
  nodes: readonly FieldNode<F>[],
  matches: (node: FieldNode<F>) => boolean,
): FieldNode<F>[] {
  return nodes.flatMap((node) => {
    if (matches(node)) return [node];
    const children = filterFieldTree(node.children, matches);
    return children.length === 0 ? [] : [{ ...node, children }];
  });
}

/** Whether a node's path, name or any of `texts` (type, description, tags) holds the query, ignoring case. */
export function nodeMatchesText<F>(
  node: FieldNode<F>,
  query: string,
  texts: readonly (string | null | undefined)[] = [],
): boolean {
  const wanted = query.trim().toLowerCase();
  if (wanted === '') return true;
  return [node.path, node.id, ...texts].some(
    (text) => text !== null && text !== undefined && text.toLowerCase().includes(wanted),
  );
}

/** One visible row of the tree: its node and whether it can open. */
export interface FieldRow<F> {
  readonly node: FieldNode<F>;
  readonly hasChildren: boolean;
  readonly expanded: boolean;
}

/** The rows shown, depth first: the children of a node only when it is expanded (every node when `expandAll`). */
export function visibleFieldRows<F>(
  nodes: readonly FieldNode<F>[],
  expanded: ReadonlySet<string>,
  expandAll = false,
): FieldRow<F>[] {
  const rows: FieldRow<F>[] = [];
  const walk = (list: readonly FieldNode<F>[]) => {
    for (const node of list) {
      const open = expandAll || expanded.has(node.id);
      rows.push({ node, hasChildren: node.children.length > 0, expanded: open && node.children.length > 0 });
      if (open) walk(node.children);
    }
  };
  walk(nodes);
  return rows;
}

/** The ids of every node that has children (for "expand all"). */
export function parentIds<F>(nodes: readonly FieldNode<F>[]): string[] {
  return nodes.flatMap((node) => (node.children.length === 0 ? [] : [node.id, ...parentIds(node.children)]));
}

/** How many fields (not groups) the tree holds. */
export function countFields<F>(nodes: readonly FieldNode<F>[]): number {
  return nodes.reduce((total, node) => total + (node.field === undefined ? 0 : 1) + countFields(node.children), 0);
}
