import { applyOperation, type Operation } from 'fast-json-patch';
import { setOwn, type JsonObject } from './aspect-validator';
import { SYSTEM_ACTOR_URN } from './actors';
import type { AspectSpec } from './entity-registry';
import { ValidationError } from './errors';

/**
 * PATCH proposals, applied as DataHub applies them. A patch is a list of JSON Patch (RFC 6902) operations, sent either
 * as a JSON array or in DataHub's generic form `{"patch": [...], "arrayPrimaryKeys": {"<array>": ["<key field>", ...]}}`.
 *
 * Before the operations run, the arrays of the aspect that elements are identified in become objects keyed by those
 * elements' identifying fields (`tags` by `tag`, `owners` by `owner` then `type`), so that a path names an element by
 * what it is (`/tags/urn:li:tag:x`, `/owners/urn:li:corpuser:a/DATAOWNER`) rather than by its position; afterwards
 * they become arrays again, in the order their keys were first seen. Which arrays, keyed how, is DataHub's per aspect
 * ({@link PATCH_TEMPLATES}); the generic form names its own. A missing aspect is patched from its template's empty
 * value. Pure: the time and actor of defaults come from the caller.
 */

export type PatchOperationName = 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';

export interface PatchOperation {
  readonly op: PatchOperationName;
  readonly path: string;
  readonly value?: unknown;
  readonly from?: string;
}

export interface AspectPatch {
  readonly operations: readonly PatchOperation[];
  /** The generic form's keys, when it takes the generic route (keys given, or `forceGenericPatch`). */
  readonly arrayPrimaryKeys: Readonly<Record<string, readonly string[]>> | undefined;
  /** The patch as received (array or generic object), for the proposal record. */
  readonly document: unknown;
}

export interface PatchContext {
  readonly now: number;
  readonly urn: string;
}

/** Separates the segments of a nested key field (`attribution␟source`), as DataHub writes it. */
export const KEY_PATH_SEPARATOR = '\u241F';

const OPERATIONS: ReadonlySet<string> = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/** Reads a patch document: a JSON array of operations, or the generic form. Throws a ValidationError naming the fault. */
export function parseAspectPatch(aspectName: string, document: unknown): AspectPatch {
  const fail = (reason: string): never => {
    throw new ValidationError(`Invalid JSON Patch for aspect ${aspectName}: ${reason}`);
  };
  let rawOperations: unknown;
  let arrayPrimaryKeys: Record<string, string[]> | undefined;
  if (Array.isArray(document)) {
    rawOperations = document;
  } else if (isObject(document) && Object.hasOwn(document, 'patch')) {
    rawOperations = document['patch'];
    const keys = document['arrayPrimaryKeys'];
    const force = document['forceGenericPatch'];
    if (force !== undefined && force !== null && typeof force !== 'boolean')
      fail('forceGenericPatch must be a boolean');
    if (keys !== undefined && keys !== null) {
      if (!isObject(keys)) return fail('arrayPrimaryKeys must be an object of arrays of field names');
      arrayPrimaryKeys = {};
      for (const [field, list] of Object.entries(keys)) {
        if (!Array.isArray(list) || !list.every((key): key is string => typeof key === 'string' && key !== '')) {
          return fail(`arrayPrimaryKeys.${field} must be an array of field names`);
        }
        setOwn(arrayPrimaryKeys, field, list);
      }
    }
    if (Object.keys(arrayPrimaryKeys ?? {}).length === 0 && force !== true) arrayPrimaryKeys = undefined;
    else arrayPrimaryKeys ??= {};
  } else {
    return fail('expected a JSON array of operations, or an object with "patch"');
  }
  if (!Array.isArray(rawOperations)) return fail('"patch" must be an array of operations');
  const operations = rawOperations.map((raw: unknown, index): PatchOperation => {
    const where = `operation ${index}`;
    if (!isObject(raw)) return fail(`${where} must be an object`);
    const { op, path, value, from } = raw;
    if (typeof op !== 'string' || !OPERATIONS.has(op)) {
      return fail(`${where}: unsupported op ${JSON.stringify(op)} (expected add, remove, replace, move, copy or test)`);
    }
    if (typeof path !== 'string' || (path !== '' && !path.startsWith('/'))) {
      return fail(`${where}: path must be a JSON pointer ("/..."), got ${JSON.stringify(path)}`);
    }
    if ((op === 'add' || op === 'replace' || op === 'test') && value === undefined)
      fail(`${where}: ${op} needs a value`);
    if ((op === 'move' || op === 'copy') && typeof from !== 'string') fail(`${where}: ${op} needs "from"`);
    return {
      op: op as PatchOperationName,
      path,
      ...(value === undefined || op === 'remove' ? {} : { value }),
      ...(typeof from === 'string' ? { from } : {}),
    };
  });
  return Object.freeze({ operations, arrayPrimaryKeys, document });
}

/** How one array of an aspect is keyed while a patch applies. */
interface ArrayKeying {
  /** Path of the array inside its object, `/`-separated (`actors/users`). */
  readonly field: string;
  /** Identifying fields, outermost first; none for an array of strings (keyed by the strings themselves). */
  readonly keys: readonly string[];
  /** Arrays inside each element, keyed too. */
  readonly inner?: readonly ArrayKeying[];
  /** Keyed only where the array is there (an absent one stays absent, rather than coming back empty). */
  readonly ifPresent?: boolean;
}

interface PatchTemplate {
  /** The aspect's value before anything was written, or undefined when it has none (a patch then needs the aspect). */
  readonly empty?: (context: PatchContext) => JsonObject;
  readonly arrays: readonly ArrayKeying[];
  /** `fineGrainedLineages` keyed by transform operation, downstream, query and upstream. */
  readonly fineGrainedLineages?: boolean;
}

const stamp = (context: PatchContext): JsonObject => ({ time: context.now, actor: SYSTEM_ACTOR_URN });
const edges = (...fields: string[]): ArrayKeying[] => fields.map((field) => ({ field, keys: ['destinationUrn'] }));
const strings = (...fields: string[]): ArrayKeying[] => fields.map((field) => ({ field, keys: [] }));
const TAGS: ArrayKeying = { field: 'globalTags/tags', keys: ['tag'], ifPresent: true };
const TERMS: ArrayKeying = { field: 'glossaryTerms/terms', keys: ['urn'], ifPresent: true };

/** DataHub's patch templates: the aspects a plain patch can key arrays of, and their empty values. */
export const PATCH_TEMPLATES: Readonly<Record<string, PatchTemplate>> = Object.freeze({
  ownership: {
    empty: (context) => ({ owners: [], lastModified: stamp(context) }),
    arrays: [{ field: 'owners', keys: ['owner', 'type'] }],
  },
  globalTags: { empty: () => ({ tags: [] }), arrays: [{ field: 'tags', keys: ['tag'] }] },
  glossaryTerms: {
    empty: (context) => ({ terms: [], auditStamp: stamp(context) }),
    arrays: [{ field: 'terms', keys: ['urn'] }],
  },
  datasetProperties: { empty: () => ({ tags: [], customProperties: {} }), arrays: strings('tags') },
  upstreamLineage: {
    empty: () => ({ upstreams: [], fineGrainedLineages: [] }),
    arrays: [{ field: 'upstreams', keys: ['dataset'] }],
    fineGrainedLineages: true,
  },
  editableSchemaMetadata: {
    empty: (context) => ({ created: stamp(context), lastModified: stamp(context), editableSchemaFieldInfo: [] }),
    arrays: [{ field: 'editableSchemaFieldInfo', keys: ['fieldPath'], inner: [TAGS, TERMS] }],
  },
  dataJobInputOutput: {
    empty: () => ({
      inputDatajobEdges: [],
      inputDatasetEdges: [],
      outputDatasetEdges: [],
      fineGrainedLineages: [],
      inputDatasetFields: [],
      outputDatasetFields: [],
      inputDatajobs: [],
      inputDatasets: [],
      outputDatasets: [],
    }),
    arrays: [
      ...edges('inputDatajobEdges', 'inputDatasetEdges', 'outputDatasetEdges'),
      ...strings('inputDatasetFields', 'outputDatasetFields'),
    ],
    fineGrainedLineages: true,
  },
  chartInfo: {
    empty: (context) => ({
      description: '',
      title: '',
      lastModified: { created: stamp(context), lastModified: stamp(context) },
      inputEdges: [],
      inputs: [],
    }),
    arrays: [...edges('inputEdges'), ...strings('inputs')],
  },
  dashboardInfo: {
    empty: (context) => ({
      title: '',
      description: '',
      lastModified: { created: stamp(context), lastModified: stamp(context) },
      chartEdges: [],
      datasetEdges: [],
      datasets: [],
      charts: [],
    }),
    arrays: [...edges('chartEdges', 'datasetEdges', 'dashboards'), ...strings('datasets', 'charts')],
  },
  dataProductProperties: { empty: () => ({ assets: [] }), arrays: edges('assets') },
  structuredProperties: { empty: () => ({ properties: [] }), arrays: [{ field: 'properties', keys: ['propertyUrn'] }] },
  propertyDefinition: {
    empty: () => ({ qualifiedName: '', valueType: 'urn:li:dataType:datahub.string', entityTypes: [] }),
    arrays: [
      ...strings('entityTypes'),
      { field: 'allowedPlatforms', keys: [], ifPresent: true },
      // Keyed by the allowed value itself (a union: `{"string": "x"}` keys as `x`).
      { field: 'allowedValues', keys: ['value'], ifPresent: true },
    ],
  },
  formInfo: {
    empty: () => ({ name: '' }),
    arrays: [{ field: 'prompts', keys: ['id'] }, ...strings('actors/users', 'actors/groups')],
  },
  siblings: { empty: () => ({ siblings: [], primary: false }), arrays: strings('siblings') },
  domains: { empty: () => ({ domains: [] }), arrays: strings('domains') },
  documentation: {
    empty: () => ({ documentations: [] }),
    arrays: [{ field: 'documentations', keys: [`attribution${KEY_PATH_SEPARATOR}source`] }],
  },
  status: { empty: () => ({ removed: false }), arrays: [] },
  dataFlowInfo: { empty: () => ({ customProperties: {} }), arrays: [] },
  dataJobInfo: { empty: () => ({ customProperties: {} }), arrays: [] },
  editableDatasetProperties: { empty: () => ({}), arrays: [] },
  editableContainerProperties: { empty: () => ({}), arrays: [] },
  editableMlModelGroupProperties: { empty: () => ({}), arrays: [] },
  versionProperties: { arrays: [] },
});

/**
 * Applies a patch to the aspect's current value (undefined when absent) and returns the patched value, not yet
 * validated against the aspect's schema. Throws a ValidationError naming the operation that cannot apply.
 */
export function applyAspectPatch(
  aspect: AspectSpec,
  current: JsonObject | undefined,
  patch: AspectPatch,
  context: PatchContext,
): JsonObject {
  const template = Object.hasOwn(PATCH_TEMPLATES, aspect.name) ? PATCH_TEMPLATES[aspect.name] : undefined;
  const generic = patch.arrayPrimaryKeys;
  const start = current ?? template?.empty?.(context) ?? (generic === undefined ? undefined : {});
  if (start === undefined) {
    throw new ValidationError(
      `Patch not supported for aspect with name ${aspect.name}. Default aspect is required because no aspect currently exists for urn ${context.urn}.`,
    );
  }
  const arrays =
    generic === undefined
      ? (template?.arrays ?? [])
      : Object.entries(generic).map(([field, keys]): ArrayKeying => ({ field, keys }));
  const withLineages = generic === undefined && template?.fineGrainedLineages === true;

  const document = structuredClone<JsonObject>(start);
  for (const keying of arrays) keyArray(document, keying);
  if (withLineages) keyFineGrainedLineages(document, aspect.name);
  patch.operations.forEach((operation, index) => {
    applyOne(document, operation, index, aspect.name);
  });
  for (const keying of arrays) unkeyArray(document, keying);
  if (withLineages) unkeyFineGrainedLineages(document);
  if (generic === undefined && (aspect.name === 'glossaryTerms' || aspect.name === 'editableSchemaMetadata')) {
    fillTermStamps(document, aspect.name, context);
  }
  return document;
}

function applyOne(document: JsonObject, operation: PatchOperation, index: number, aspectName: string): void {
  const tokens = operation.path.split('/').slice(1).map(decodeToken);
  // As DataHub does: the objects on the way to the target are created, so that `add /owners/<new owner>/<type>` works
  // and a `remove` of what is not there removes nothing instead of failing.
  const created = operation.op === 'remove' || operation.path.endsWith('/') ? tokens : tokens.slice(0, -1);
  let node: unknown = document;
  for (const token of created) {
    if (!isObject(node)) break;
    if (!Object.hasOwn(node, token)) setOwn(node, token, {});
    node = node[token];
  }
  try {
    applyOperation(document, operation as Operation, true, true, true);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new ValidationError(
      `Patch operation ${index} (${operation.op} ${operation.path}) cannot apply to aspect ${aspectName}: ${reason}`,
      { cause: error },
    );
  }
}

function decodeToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

// ---------------------------------------------------------------------------------------------------------------------
// Arrays keyed by their elements' identifying fields.

function keyArray(container: JsonObject, keying: ArrayKeying): void {
  const { parent, name } = locate(container, keying.field, keying.ifPresent !== true);
  if (parent === undefined || (keying.ifPresent === true && !Array.isArray(parent[name]))) return;
  const items = parent[name];
  const keyed: JsonObject = {};
  if (Array.isArray(items)) {
    for (const item of items) {
      if (keying.keys.length === 0) {
        setOwn(keyed, typeof item === 'string' ? item : '', item as JsonObject[string]);
        continue;
      }
      if (isObject(item)) for (const inner of keying.inner ?? []) keyArray(item, inner);
      let node = keyed;
      keying.keys.forEach((key, depth) => {
        const token = keyText(item, key);
        const last = depth === keying.keys.length - 1;
        const existing = Object.hasOwn(node, token) ? node[token] : undefined;
        if (!last) {
          if (!isObject(existing)) setOwn(node, token, {});
          node = node[token] as JsonObject;
        } else if (isObject(existing) && isObject(item)) {
          Object.assign(existing, item);
        } else {
          setOwn(node, token, item as JsonObject[string]);
        }
      });
    }
  }
  setOwn(parent, name, keyed);
}

function unkeyArray(container: JsonObject, keying: ArrayKeying): void {
  const { parent, name } = locate(container, keying.field, false);
  if (parent === undefined) return;
  const keyed = parent[name];
  if (Array.isArray(keyed)) return; // the whole array was set by the patch: kept as sent
  if (!isObject(keyed)) {
    if (keying.ifPresent !== true || Object.hasOwn(parent, name)) setOwn(parent, name, []);
    return;
  }
  const items: unknown[] = [];
  const collect = (node: unknown, depth: number, path: readonly string[]): void => {
    if (depth === keying.keys.length) {
      for (const item of Array.isArray(node) ? node : [node]) {
        if (isObject(item)) {
          keying.keys.forEach((key, index) => {
            const token = path[index] ?? '';
            if (token !== '' && !key.includes(KEY_PATH_SEPARATOR) && !Object.hasOwn(item, key))
              setOwn(item, key, token);
          });
          for (const inner of keying.inner ?? []) unkeyArray(item, inner);
        }
        items.push(item);
      }
      return;
    }
    if (!isObject(node)) return;
    for (const [token, child] of Object.entries(node)) collect(child, depth + 1, [...path, token]);
  };
  if (keying.keys.length === 0) items.push(...Object.values(keyed));
  else collect(keyed, 0, []);
  setOwn(parent, name, items);
}

/** The object holding the last segment of `field`, created on the way when `create` (an absent array keys as {}). */
function locate(container: JsonObject, field: string, create: boolean): { parent?: JsonObject; name: string } {
  const segments = field.split('/');
  const name = segments.pop() as string;
  let parent: JsonObject = container;
  for (const segment of segments) {
    const next = Object.hasOwn(parent, segment) ? parent[segment] : undefined;
    if (!isObject(next)) {
      if (!create) return { name };
      setOwn(parent, segment, {});
    }
    parent = parent[segment] as JsonObject;
  }
  return { parent, name };
}

/** An element's identifying text at a key field (nested with ␟); '' when absent, as DataHub keys it. */
function keyText(item: unknown, key: string): string {
  let value: unknown = item;
  for (const segment of key.split(KEY_PATH_SEPARATOR)) {
    value = isObject(value) && Object.hasOwn(value, segment) ? value[segment] : undefined;
  }
  // A union member (`{"string": "x"}`) keys as its content, as DataHub keys structured-property values.
  if (isObject(value) && Object.keys(value).length === 1) value = Object.values(value)[0];
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

// ---------------------------------------------------------------------------------------------------------------------
// Fine-grained lineages: keyed by transform operation, the one downstream, the query, then each upstream.

const NONE = 'NONE';

function keyFineGrainedLineages(document: JsonObject, aspectName: string): void {
  const lineages = Array.isArray(document['fineGrainedLineages']) ? document['fineGrainedLineages'] : [];
  const keyed: JsonObject = {};
  for (const lineage of lineages) {
    if (!isObject(lineage)) continue;
    const downstreams = Array.isArray(lineage['downstreams']) ? lineage['downstreams'] : [];
    if (downstreams.length !== 1) {
      throw new ValidationError(
        `Patching is not supported on fine-grained lineages with other than exactly one downstream (aspect ${aspectName})`,
      );
    }
    const operation = typeof lineage['transformOperation'] === 'string' ? lineage['transformOperation'] : NONE;
    const query = typeof lineage['query'] === 'string' ? lineage['query'] : NONE;
    const upstreams = Array.isArray(lineage['upstreams']) ? lineage['upstreams'] : [];
    const firstUpstream = typeof upstreams[0] === 'string' ? upstreams[0] : '';
    const leaf = {
      confidenceScore: typeof lineage['confidenceScore'] === 'number' ? lineage['confidenceScore'] : 1,
      upstreamType: lineage['upstreamType'] ?? (firstUpstream.startsWith('urn:li:dataset:') ? 'DATASET' : 'FIELD_SET'),
      downstreamType: lineage['downstreamType'] ?? 'FIELD',
    };
    const byQuery = child(child(keyed, operation), String(downstreams[0]));
    const byUpstream = child(byQuery, query);
    for (const upstream of upstreams) setOwn(byUpstream, String(upstream), { ...leaf });
  }
  setOwn(document, 'fineGrainedLineages', keyed);
}

function unkeyFineGrainedLineages(document: JsonObject): void {
  const keyed = document['fineGrainedLineages'];
  if (Array.isArray(keyed)) return;
  const lineages: JsonObject[] = [];
  for (const [operation, byDownstream] of entriesOf(keyed)) {
    for (const [downstream, byQuery] of entriesOf(byDownstream)) {
      for (const [query, byUpstream] of entriesOf(byQuery)) {
        const upstreams = entriesOf(byUpstream);
        if (upstreams.length === 0) continue;
        let upstreamType: unknown = 'FIELD_SET';
        let downstreamType: unknown = 'FIELD';
        let confidenceScore = 1;
        for (const [, leaf] of upstreams) {
          if (!isObject(leaf)) continue;
          if (leaf['upstreamType'] !== undefined) upstreamType = leaf['upstreamType'];
          if (leaf['downstreamType'] !== undefined) downstreamType = leaf['downstreamType'];
          if (typeof leaf['confidenceScore'] === 'number')
            confidenceScore = Math.min(confidenceScore, leaf['confidenceScore']);
        }
        lineages.push({
          upstreamType,
          upstreams: upstreams.map(([upstream]) => upstream),
          downstreamType,
          downstreams: [downstream],
          transformOperation: operation,
          confidenceScore,
          ...(query === NONE ? {} : { query }),
        });
      }
    }
  }
  setOwn(document, 'fineGrainedLineages', lineages);
}

function child(node: JsonObject, key: string): JsonObject {
  if (!isObject(Object.hasOwn(node, key) ? node[key] : undefined)) setOwn(node, key, {});
  return node[key] as JsonObject;
}

function entriesOf(node: unknown): [string, unknown][] {
  return isObject(node) ? Object.entries(node) : [];
}

/** Glossary term lists require their audit stamp; DataHub's template supplies it when a patch leaves none. */
function fillTermStamps(document: JsonObject, aspectName: string, context: PatchContext): void {
  const fill = (terms: unknown): void => {
    if (isObject(terms) && !Object.hasOwn(terms, 'auditStamp')) setOwn(terms, 'auditStamp', stamp(context));
  };
  if (aspectName === 'glossaryTerms') {
    fill(document);
    return;
  }
  const fields = document['editableSchemaFieldInfo'];
  if (!Array.isArray(fields)) return;
  for (const field of fields) if (isObject(field) && field['glossaryTerms'] !== undefined) fill(field['glossaryTerms']);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
