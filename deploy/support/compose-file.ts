import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { isMapping, repositoryRoot, type Mapping } from './helm-charts';

/** docker-compose.yml, at the repository's root. */
export const composeFilePath = join(repositoryRoot, 'docker-compose.yml');

/** .env.example, which documents every variable the compose file reads. */
export const environmentExamplePath = join(repositoryRoot, '.env.example');

/** How the compose file refers to one variable: `${NAME}`, `${NAME:-default}` or `${NAME:?message}`. */
export interface VariableReference {
  readonly name: string;
  readonly required: boolean;
  readonly defaultValue: string | undefined;
}

const reference = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

/** Every variable reference in `text`, as Compose interpolates them (`$$` is a literal `$`). */
export function variableReferences(text: string): VariableReference[] {
  const references: VariableReference[] = [];
  for (const match of text.matchAll(reference)) {
    const name = match[1] ?? match[4];
    if (name === undefined) continue;
    const operator = match[2];
    references.push({
      name,
      required: operator === ':?' || operator === '?',
      defaultValue: operator === ':-' || operator === '-' ? (match[3] ?? '') : undefined,
    });
  }
  return references;
}

/**
 * `text` with its variables replaced as Compose replaces them: by `values[name]` when given, else by the default the
 * reference states; a required variable without a value throws, as Compose refuses to start.
 */
export function interpolate(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(reference, (whole, braced?: string, operator?: string, argument?: string, bare?: string) => {
    if (whole === '$$') return '$';
    const name = braced ?? bare ?? '';
    const value = values[name];
    const unset = value === undefined || (operator?.startsWith(':') === true && value === '');
    if (!unset) return value;
    if (operator === ':?' || operator === '?') throw new Error(`${name} is required: ${argument ?? ''}`);
    if (operator === ':-' || operator === '-') return argument ?? '';
    return '';
  });
}

/** The compose file's text. */
export function readComposeText(): string {
  return readFileSync(composeFilePath, 'utf8');
}

/** Every value of a parsed YAML tree with its strings interpolated. */
function interpolateTree(node: unknown, values: Readonly<Record<string, string>>): unknown {
  if (typeof node === 'string') return interpolate(node, values);
  if (Array.isArray(node)) return node.map((item) => interpolateTree(item, values));
  if (isMapping(node)) {
    return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, interpolateTree(item, values)]));
  }
  return node;
}

/** The compose file, parsed (YAML merge keys resolved) and interpolated with `values`. */
export function readComposeFile(values: Readonly<Record<string, string>>): Mapping {
  const parsed: unknown = parse(readComposeText(), { merge: true });
  const interpolated = interpolateTree(parsed, values);
  if (!isMapping(interpolated)) throw new Error('docker-compose.yml is not a mapping');
  return interpolated;
}

/** A service's environment, from Compose's mapping or list form, every value as the container sees it. */
export function serviceEnvironment(service: Mapping): Record<string, string> {
  const environment = service['environment'];
  if (Array.isArray(environment)) {
    return Object.fromEntries(
      environment.map((entry) => {
        const text = String(entry);
        const equals = text.indexOf('=');
        return equals === -1 ? [text, ''] : [text.slice(0, equals), text.slice(equals + 1)];
      }),
    );
  }
  if (!isMapping(environment)) return {};
  return Object.fromEntries(Object.entries(environment).map(([name, value]) => [name, scalarText(value, name)]));
}

/** A scalar of the compose file as Compose passes it on: strings as they are, numbers and booleans as written. */
function scalarText(value: unknown, name: string): string {
  if (value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new Error(`${name} is not a scalar`);
}

/** The variables .env.example sets, with the values it gives them (empty for the secrets a user must choose). */
export function readEnvironmentExample(): Map<string, string> {
  const variables = new Map<string, string>();
  for (const line of readFileSync(environmentExamplePath, 'utf8').split('\n')) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line.trim());
    if (match?.[1] !== undefined) variables.set(match[1], match[2] ?? '');
  }
  return variables;
}
