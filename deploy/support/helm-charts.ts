import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { placeholderFor } from './process-configurations';

/** The repository's root. */
export const repositoryRoot = join(__dirname, '..', '..');

/** Where the charts are: one directory per chart. */
export const helmDirectory = join(repositoryRoot, 'deploy', 'helm');

/** Values, or any YAML or JSON mapping. */
export type Mapping = Record<string, unknown>;

/** A chart's dependency as its Chart.yaml declares it. */
export interface ChartDependency {
  readonly name: string;
  readonly version: string;
  readonly repository: string;
  readonly condition?: string;
}

/** One chart of deploy/helm, read from its directory. */
export interface Chart {
  readonly name: string;
  readonly directory: string;
  readonly type: 'application' | 'library';
  readonly dependencies: readonly ChartDependency[];
  /** values.yaml (empty for a chart without one). */
  readonly values: Mapping;
  /** values.schema.json, or undefined when the chart has none. */
  readonly schema: Mapping | undefined;
  /** Every file under templates/, by name. */
  readonly templates: ReadonlyMap<string, string>;
}

export function isMapping(value: unknown): value is Mapping {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A mapping's entry that is itself a mapping, or an empty one. */
export function mappingAt(value: Mapping, key: string): Mapping {
  const entry = value[key];
  return isMapping(entry) ? entry : {};
}

/** A mapping whose values are all strings, such as an environment; throws naming the first value that is not. */
export function stringMapping(value: unknown, what: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isMapping(value)) throw new Error(`${what} is not a mapping`);
  const result: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== 'string') throw new Error(`${what}.${key} is not a string`);
    result[key] = entry;
  }
  return result;
}

function readYaml(path: string): Mapping {
  if (!existsSync(path)) return {};
  const parsed: unknown = parse(readFileSync(path, 'utf8'));
  if (parsed === null || parsed === undefined) return {};
  if (!isMapping(parsed)) throw new Error(`${path} is not a mapping`);
  return parsed;
}

export function readChart(name: string): Chart {
  const directory = join(helmDirectory, name);
  const meta = readYaml(join(directory, 'Chart.yaml'));
  const dependencies = Array.isArray(meta['dependencies']) ? (meta['dependencies'] as ChartDependency[]) : [];
  const templatesDirectory = join(directory, 'templates');
  const templates = new Map(
    existsSync(templatesDirectory)
      ? readdirSync(templatesDirectory).map((file) => [file, readFileSync(join(templatesDirectory, file), 'utf8')])
      : [],
  );
  const schemaPath = join(directory, 'values.schema.json');
  return {
    name: String(meta['name']),
    directory,
    type: meta['type'] === 'library' ? 'library' : 'application',
    dependencies,
    values: readYaml(join(directory, 'values.yaml')),
    schema: existsSync(schemaPath) ? (JSON.parse(readFileSync(schemaPath, 'utf8')) as Mapping) : undefined,
    templates,
  };
}

/** Every chart under deploy/helm, by directory name. */
export function readCharts(): Map<string, Chart> {
  return new Map(
    readdirSync(helmDirectory, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => [entry.name, readChart(entry.name)]),
  );
}

/**
 * Helm's coalescing of values: `preferred` over `fallback`, mappings merged key by key at every depth, anything else
 * (a list, a string) taken whole from `preferred`.
 */
export function coalesce(preferred: Mapping, fallback: Mapping): Mapping {
  const result: Mapping = { ...fallback };
  for (const [key, value] of Object.entries(preferred)) {
    const under = result[key];
    result[key] = isMapping(value) && isMapping(under) ? coalesce(value, under) : value;
  }
  return result;
}

/**
 * The values a service chart renders with when the umbrella chart installs it: the umbrella's section for it over the
 * chart's own values, and the umbrella's `global` over the chart's.
 */
export function valuesUnderUmbrella(umbrella: Mapping, chart: Chart): Mapping {
  const merged = coalesce(mappingAt(umbrella, chart.name), chart.values);
  return { ...merged, global: coalesce(mappingAt(umbrella, 'global'), mappingAt(chart.values, 'global')) };
}

/** The release name the checks render values with. */
export const releaseName = 'strata';

/**
 * The values' template expressions rendered as the charts' `tpl` renders them: `{{ .Release.Name }}` is the only
 * expression the charts' values use; anything else is reported.
 */
export function renderValue(value: string, problems: string[], where: string): string {
  const rendered = value.replace(/\{\{-?\s*\.Release\.Name\s*-?\}\}/g, releaseName);
  if (rendered.includes('{{')) problems.push(`${where} uses a template expression other than {{ .Release.Name }}`);
  return rendered;
}

/**
 * The environment of a service's container as the library chart's `strata-common.env` builds it from `values`:
 * `global.env` and `env` (the service's winning), CUSTOM_MODELS_DIR when a ConfigMap of custom models is mounted,
 * `fieldEnv` and `secretEnv`, whose values stand in as placeholders. A variable set by two of these sources is a
 * problem (Kubernetes would take the last, silently).
 */
export function containerEnvironment(
  values: Mapping,
  where: string,
): { environment: Record<string, string>; problems: string[] } {
  const problems: string[] = [];
  const global = mappingAt(values, 'global');
  const environment: Record<string, string> = {};
  const sourceOf = new Map<string, string>();
  const set = (name: string, value: string, source: string) => {
    const earlier = sourceOf.get(name);
    if (earlier !== undefined) problems.push(`${where}: ${name} is set by both ${earlier} and ${source}`);
    sourceOf.set(name, source);
    environment[name] = value;
  };
  const literal = { ...stringMapping(global['env'], 'global.env'), ...stringMapping(values['env'], 'env') };
  for (const [name, value] of Object.entries(literal)) {
    set(name, renderValue(value, problems, `${where} ${name}`), 'env');
  }
  if (mappingAt(global, 'customModels')['configMap']) set('CUSTOM_MODELS_DIR', '/etc/strata/models', 'customModels');
  for (const name of Object.keys(stringMapping(values['fieldEnv'], 'fieldEnv'))) {
    set(name, placeholderFor(name), 'fieldEnv');
  }
  for (const name of Object.keys(stringMapping(values['secretEnv'], 'secretEnv'))) {
    set(name, placeholderFor(name), 'secretEnv');
  }
  return { environment, problems };
}

/** The `.Values` paths and named templates that a piece of template text uses. */
export interface TemplateUses {
  readonly valuesPaths: Set<string>;
  readonly includes: Set<string>;
}

/** The uses of a template file: outside any `define`, and inside each `define`, by name. */
export interface ScannedTemplate {
  readonly topLevel: TemplateUses;
  readonly defines: Map<string, TemplateUses>;
}

/**
 * Reads Go template text as Helm's engine would parse it, far enough to tell which `.Values` paths each part reads and
 * which named templates it includes: actions are `{{ … }}`; template comments are dropped first; `define` blocks nest
 * with `if`, `range`, `with` and `block` up to their `end`.
 */
export function scanTemplate(text: string): ScannedTemplate {
  const topLevel: TemplateUses = { valuesPaths: new Set(), includes: new Set() };
  const defines = new Map<string, TemplateUses>();
  const blocks: (TemplateUses | undefined)[] = [];
  const current = (): TemplateUses => {
    for (let index = blocks.length - 1; index >= 0; index -= 1) {
      const block = blocks[index];
      if (block !== undefined) return block;
    }
    return topLevel;
  };
  const withoutComments = text.replace(/\{\{-?\s*\/\*[\s\S]*?\*\/\s*-?\}\}/g, '');
  for (const match of withoutComments.matchAll(/\{\{-?\s*([\s\S]*?)\s*-?\}\}/g)) {
    const action = match[1] ?? '';
    const keyword = /^[a-z]+/.exec(action)?.[0];
    if (keyword === 'end') {
      if (blocks.length === 0) throw new Error(`an {{ end }} closes nothing: ${match[0]}`);
      blocks.pop();
      continue;
    }
    if (keyword === 'define') {
      const name = /^define\s+"([^"]+)"/.exec(action)?.[1];
      if (name === undefined) throw new Error(`a define without a name: ${match[0]}`);
      const uses: TemplateUses = { valuesPaths: new Set(), includes: new Set() };
      defines.set(name, uses);
      blocks.push(uses);
      continue;
    }
    const uses = current();
    for (const path of action.matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)) {
      uses.valuesPaths.add((path[1] ?? '').slice(1));
    }
    for (const include of action.matchAll(/\b(?:include|template)\s+"([^"]+)"/g)) {
      uses.includes.add(include[1] ?? '');
    }
    if (keyword === 'if' || keyword === 'range' || keyword === 'with' || keyword === 'block') blocks.push(undefined);
  }
  if (blocks.length > 0) throw new Error('a block is not closed by {{ end }}');
  return { topLevel, defines };
}

/** Whether `path` (`a.b.c`) leads to a value in `values`. */
export function valuesHavePath(values: Mapping, path: string): boolean {
  let node: unknown = values;
  for (const key of path.split('.')) {
    if (!isMapping(node) || !(key in node)) return false;
    node = node[key];
  }
  return true;
}

/** Whether the JSON schema names `path` (`a.b.c`) as properties, following its local `$ref`s. */
export function schemaHasPath(schema: Mapping, path: string): boolean {
  const resolve = (node: Mapping): Mapping => {
    const reference = node['$ref'];
    if (typeof reference !== 'string') return node;
    let target: unknown = schema;
    for (const key of reference.replace(/^#\//, '').split('/')) target = isMapping(target) ? target[key] : undefined;
    if (!isMapping(target)) throw new Error(`unresolved $ref ${reference}`);
    return resolve(target);
  };
  let node: Mapping = resolve(schema);
  for (const key of path.split('.')) {
    const property = mappingAt(node, 'properties')[key];
    if (!isMapping(property)) return false;
    node = resolve(property);
  }
  return true;
}
