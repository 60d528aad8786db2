import { globTokens, ValidationError, WildcardPattern } from '@strata/model';

import type { FieldValue, MatchedField } from './search-index';
import type { EntitySearchSchema, IndexField } from './search-schema';

/**
 * The search text language both engines implement (a subset of Lucene's `query_string`, which DataHub's structured
 * search hands its input to), the analyzer that turns values and query words into comparable words, and the
 * `matchedFields` computation. Pure.
 */

/** A parsed query. */
export type QueryNode =
  | { readonly kind: 'all' }
  /** Words in order (a phrase when several); `prefix`: the last word is a prefix. */
  | { readonly kind: 'words'; readonly field?: string; readonly words: readonly string[]; readonly prefix: boolean }
  /** A glob (`*` any run, `?` one character) over whole values, folded like words (`*ers`, `fct_*_deleted`). */
  | { readonly kind: 'wildcard'; readonly field?: string; readonly pattern: string }
  | { readonly kind: 'and'; readonly nodes: readonly QueryNode[] }
  | { readonly kind: 'or'; readonly nodes: readonly QueryNode[] }
  | { readonly kind: 'not'; readonly node: QueryNode };

const ALNUM_RUN = /[\p{L}\p{N}]+/gu;
/** Sub-words of a run: `HTTPServer2Log` → HTTP, Server, 2, Log. */
const SUB_WORD = /\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lu}+|\p{N}+|[\p{L}]+/gu;
const MAX_QUERY_LENGTH = 4096;

/**
 * The most terms search text may hold, a phrase counting one per word. Limits are checked here, before either engine
 * sees the query, so that both refuse the same text with a `ValidationError` instead of failing inside the engine.
 * Elasticsearch (8 and later) refuses a query of more than 1024 leaf clauses by default, counted over the whole query,
 * and a term becomes one clause per default-query field (24 for datasets; a phrase, one per word per field): 20 terms
 * are at most 480 clauses, leaving room for a filter's (`MAX_FILTER_CRITERIA`, `MAX_FILTER_VALUES`). People type a
 * few words.
 */
export const MAX_QUERY_TERMS = 20;

/**
 * How deep search text may nest: groups `( )`, negations (`NOT`, `-`), and operators (an AND inside an OR) each add a
 * level. Elasticsearch refuses queries nested deeper than `indices.query.bool.max_nested_depth` (20 by default, 30 in
 * 8.x), which counts the adapter's own wrapping too (the outer query, a term's query over several fields, the leaf);
 * SQLite's FTS5 parser overflows at about a hundred parentheses. Real queries nest two or three levels.
 */
export const MAX_QUERY_NESTING = 16;

/** Case and accent folding: `Élan` → `elan`. */
export function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

/**
 * The words of a value as indexed: every run of letters and digits, folded, in order; then, for runs with case or
 * letter/digit changes, their sub-words (`SampleHdfsDataset` → `samplehdfsdataset`, then `sample`, `hdfs`,
 * `dataset`). Sub-words come after all the runs, so phrases over the runs stay adjacent.
 */
export function analyze(text: string): string[] {
  const runs: string[] = [];
  const extra: string[] = [];
  for (const [run] of text.normalize('NFKD').replace(/\p{M}/gu, '').matchAll(ALNUM_RUN)) {
    runs.push(run.toLowerCase());
    const parts = [...run.matchAll(SUB_WORD)].map(([part]) => part.toLowerCase());
    if (parts.length > 1) extra.push(...parts);
  }
  return [...runs, ...extra];
}

/**
 * The autocomplete keys of a value: for every word start (runs and sub-words), the folded letters and digits from
 * there to the end, separators dropped (`fct_users_deleted` → `fctusersdeleted`, `usersdeleted`, `deleted`). The first
 * key is the whole value's.
 */
export function autocompleteKeys(text: string): string[] {
  const folded = text.normalize('NFKD').replace(/\p{M}/gu, '');
  const starts = new Set<number>();
  for (const run of folded.matchAll(ALNUM_RUN)) {
    for (const part of run[0].matchAll(SUB_WORD)) starts.add(run.index + part.index);
  }
  // A Set, not a list searched per key: a long value has as many keys as word starts.
  const keys = new Set<string>();
  for (const start of [...starts].sort((a, b) => a - b)) {
    const key = compact(folded.slice(start));
    if (key !== '') keys.add(key);
  }
  return [...keys];
}

/** An autocomplete query as a key prefix: folded letters and digits only (`Test_Dat` → `testdat`). */
export function autocompletePrefix(query: string): string {
  return compact(query.normalize('NFKD').replace(/\p{M}/gu, ''));
}

function compact(text: string): string {
  return [...text.matchAll(ALNUM_RUN)].map(([run]) => run.toLowerCase()).join('');
}

/**
 * Parses search text. Terms are ANDed (`AND` may be written), `OR` binds looser than AND, `NOT` or a leading `-`
 * negates, `+` is accepted and ignored, parentheses group. `field:value` (or `field:"a phrase"`, `field:(a OR b)`)
 * restricts a term to one field of the entity; a `word:` prefix that is no field of the entity is part of the text.
 * `"…"` is a phrase; a trailing `*` (after a word or a closing quote) makes the last word a prefix; `*` alone matches everything; `*` or `?` elsewhere
 * is a wildcard over whole values. A leading `:` is stripped, as DataHub does. Empty text matches everything.
 * Throws `ValidationError` for unbalanced quotes or parentheses, an operator without an operand, text longer than
 * 4096 characters, more than {@link MAX_QUERY_TERMS} terms, or nesting deeper than {@link MAX_QUERY_NESTING}.
 */
export function parseSearchQuery(text: string, schema: EntitySearchSchema): QueryNode {
  if (text.length > MAX_QUERY_LENGTH) {
    throw new ValidationError(`The search text is longer than ${MAX_QUERY_LENGTH} characters`);
  }
  const input = text.trim().replace(/^:+/, '');
  const tokens = lex(input);
  if (tokens.length === 0) return { kind: 'all' };
  const parser = new Parser(tokens, schema);
  const node = parser.parseOr();
  if (!parser.done()) parser.fail(`unexpected ${describe(parser.peek())}`);
  const simplified = simplify(node);
  checkQueryLimits(simplified);
  return simplified;
}

/** Refuses a parsed query over {@link MAX_QUERY_TERMS} or {@link MAX_QUERY_NESTING} (operators on the way to a term). */
function checkQueryLimits(query: QueryNode): void {
  let terms = 0;
  const pending: { node: QueryNode; depth: number }[] = [{ node: query, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { node, depth } = next;
    switch (node.kind) {
      case 'all':
        break;
      case 'words':
        terms += node.words.length;
        break;
      case 'wildcard':
        terms += 1;
        break;
      case 'not':
        if (depth + 1 > MAX_QUERY_NESTING) throw tooDeep();
        pending.push({ node: node.node, depth: depth + 1 });
        break;
      default:
        if (depth + 1 > MAX_QUERY_NESTING) throw tooDeep();
        for (const child of node.nodes) pending.push({ node: child, depth: depth + 1 });
    }
  }
  if (terms > MAX_QUERY_TERMS) {
    throw new ValidationError(
      `The search text holds ${terms} terms, over the limit of ${MAX_QUERY_TERMS} (a phrase counts one per word)`,
    );
  }
}

function tooDeep(): ValidationError {
  return new ValidationError(
    `The search text nests deeper than the limit of ${MAX_QUERY_NESTING} levels (groups, NOT or -, AND within OR)`,
  );
}

type Token =
  | { readonly kind: 'open' | 'close' }
  | { readonly kind: 'operator'; readonly value: 'AND' | 'OR' | 'NOT' }
  | { readonly kind: 'minus' | 'plus' }
  /** `field:` immediately followed by its value. */
  | { readonly kind: 'field'; readonly name: string }
  | { readonly kind: 'word'; readonly text: string }
  /** `"…"`; `prefix` when a `*` follows the closing quote (`"sales ord"*`). */
  | { readonly kind: 'phrase'; readonly text: string; readonly prefix: boolean };

function describe(token: Token | undefined): string {
  if (token === undefined) return 'end of text';
  switch (token.kind) {
    case 'open':
      return '"("';
    case 'close':
      return '")"';
    case 'operator':
      return token.value;
    case 'minus':
      return '"-"';
    case 'plus':
      return '"+"';
    case 'field':
      return `"${token.name}:"`;
    default:
      return `"${token.text}"`;
  }
}

function lex(input: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  const fail = (reason: string): never => {
    throw new ValidationError(`Invalid search text: ${reason}`);
  };
  while (index < input.length) {
    const char = input.charAt(index);
    if (/\s/.test(char)) {
      index += 1;
    } else if (char === '(' || char === ')') {
      tokens.push({ kind: char === '(' ? 'open' : 'close' });
      index += 1;
    } else if (char === '"') {
      const end = input.indexOf('"', index + 1);
      if (end < 0) fail('a quote is not closed');
      const prefix = input.charAt(end + 1) === '*';
      tokens.push({ kind: 'phrase', text: input.slice(index + 1, end), prefix });
      index = end + (prefix ? 2 : 1);
    } else if ((char === '-' || char === '+') && index + 1 < input.length && !/\s/.test(input.charAt(index + 1))) {
      tokens.push({ kind: char === '-' ? 'minus' : 'plus' });
      index += 1;
    } else {
      let end = index;
      while (end < input.length && !/[\s()"]/.test(input.charAt(end))) end += 1;
      const word = input.slice(index, end);
      index = end;
      const colon = word.indexOf(':');
      // `field:value`, `field:"…"`, `field:(…)`: the value follows the colon at once.
      if (colon > 0 && /^[A-Za-z_][\w.]*$/.test(word.slice(0, colon))) {
        const rest = word.slice(colon + 1);
        const next = input.charAt(index);
        if (rest !== '' || next === '"' || next === '(') {
          tokens.push({ kind: 'field', name: word.slice(0, colon) });
          if (rest !== '') tokens.push({ kind: 'word', text: rest });
          continue;
        }
      }
      if (word === 'AND' || word === 'OR' || word === 'NOT') tokens.push({ kind: 'operator', value: word });
      else if (word === '&&') tokens.push({ kind: 'operator', value: 'AND' });
      else if (word === '||') tokens.push({ kind: 'operator', value: 'OR' });
      else tokens.push({ kind: 'word', text: word });
    }
  }
  return tokens;
}

class Parser {
  private position = 0;
  /** Groups and negations open around the current token: bounded, so that the recursion is. */
  private nesting = 0;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly schema: EntitySearchSchema,
  ) {}

  done(): boolean {
    return this.position >= this.tokens.length;
  }

  peek(): Token | undefined {
    return this.tokens[this.position];
  }

  fail(reason: string): never {
    throw new ValidationError(`Invalid search text: ${reason}`);
  }

  parseOr(): QueryNode {
    const nodes = [this.parseAnd()];
    while (this.isOperator('OR')) {
      this.position += 1;
      nodes.push(this.parseAnd());
    }
    return nodes.length === 1 ? (nodes[0] as QueryNode) : { kind: 'or', nodes };
  }

  private parseAnd(): QueryNode {
    const nodes = [this.parseUnary()];
    for (;;) {
      const next = this.peek();
      if (next === undefined || next.kind === 'close' || this.isOperator('OR')) break;
      if (this.isOperator('AND')) this.position += 1;
      nodes.push(this.parseUnary());
    }
    return nodes.length === 1 ? (nodes[0] as QueryNode) : { kind: 'and', nodes };
  }

  private parseUnary(): QueryNode {
    const token = this.peek();
    if (token === undefined) return this.fail('an operator has no operand');
    if ((token.kind === 'operator' && token.value === 'NOT') || token.kind === 'minus') {
      this.position += 1;
      return { kind: 'not', node: this.nested(() => this.parseUnary()) };
    }
    if (token.kind === 'plus') this.position += 1;
    return this.parsePrimary(undefined);
  }

  private parsePrimary(field: string | undefined): QueryNode {
    const token = this.peek();
    if (token === undefined) return this.fail('an operator has no operand');
    this.position += 1;
    switch (token.kind) {
      case 'open': {
        const node = this.nested(() => this.parseOr());
        if (this.peek()?.kind !== 'close') this.fail('a parenthesis is not closed');
        this.position += 1;
        return field === undefined ? node : scoped(node, field);
      }
      case 'field': {
        const name = token.name.replace(/\.(keyword|delimited|ngram)$/, '');
        if (this.schema.field(name) !== undefined) return this.parsePrimary(name);
        // Not a field of this entity: the prefix is part of the text.
        const value = this.parsePrimary(field);
        const prefix = wordsNode(token.name, field, false);
        return { kind: 'and', nodes: [prefix, value] };
      }
      case 'phrase':
        return wordsNode(token.text, field, token.prefix);
      case 'word':
        return wordNode(token.text, field);
      default:
        return this.fail(`unexpected ${describe(token)}`);
    }
  }

  /** Parses one level deeper, refusing text nested beyond {@link MAX_QUERY_NESTING} before recursing further. */
  private nested(parse: () => QueryNode): QueryNode {
    if (this.nesting >= MAX_QUERY_NESTING) throw tooDeep();
    this.nesting += 1;
    try {
      return parse();
    } finally {
      this.nesting -= 1;
    }
  }

  private isOperator(value: 'AND' | 'OR'): boolean {
    const token = this.peek();
    return token?.kind === 'operator' && token.value === value;
  }
}

function wordNode(text: string, field: string | undefined): QueryNode {
  if (text === '*') return field === undefined ? { kind: 'all' } : { kind: 'wildcard', field, pattern: '*' };
  const firstWildcard = text.search(/[*?]/);
  if (firstWildcard < 0) return wordsNode(text, field, false);
  if (firstWildcard === text.length - 1 && text.endsWith('*')) return wordsNode(text.slice(0, -1), field, true);
  return { kind: 'wildcard', ...(field === undefined ? {} : { field }), pattern: fold(text) };
}

function wordsNode(text: string, field: string | undefined, prefix: boolean): QueryNode {
  const words = analyzeQueryWords(text);
  // Punctuation alone carries no words: it constrains nothing.
  if (words.length === 0) return { kind: 'all' };
  return { kind: 'words', ...(field === undefined ? {} : { field }), words, prefix };
}

/** Query words are the runs only (no sub-words): `SampleHdfs` must match as one word or as its indexed sub-words. */
function analyzeQueryWords(text: string): string[] {
  return [...text.normalize('NFKD').replace(/\p{M}/gu, '').matchAll(ALNUM_RUN)].map(([run]) => run.toLowerCase());
}

function scoped(node: QueryNode, field: string): QueryNode {
  switch (node.kind) {
    case 'all':
      return { kind: 'wildcard', field, pattern: '*' };
    case 'words':
    case 'wildcard':
      return node.field === undefined ? { ...node, field } : node;
    case 'not':
      return { kind: 'not', node: scoped(node.node, field) };
    default:
      return { kind: node.kind, nodes: node.nodes.map((child) => scoped(child, field)) };
  }
}

/** Removes `all` from AND groups, collapses one-member groups, and makes OR with an `all` member `all`. */
function simplify(node: QueryNode): QueryNode {
  switch (node.kind) {
    case 'and': {
      const nodes = node.nodes.map(simplify).filter((child) => child.kind !== 'all');
      if (nodes.length === 0) return { kind: 'all' };
      return nodes.length === 1 ? (nodes[0] as QueryNode) : { kind: 'and', nodes };
    }
    case 'or': {
      const nodes = node.nodes.map(simplify);
      if (nodes.some((child) => child.kind === 'all')) return { kind: 'all' };
      return nodes.length === 1 ? (nodes[0] as QueryNode) : { kind: 'or', nodes };
    }
    case 'not':
      return { kind: 'not', node: simplify(node.node) };
    default:
      return node;
  }
}

/**
 * True when the folded glob (`*` any run, `?` one code point as Lucene's wildcard takes, every other character
 * literal) matches the whole folded value. In time linear in the value, whatever the pattern ({@link WildcardPattern}):
 * the SQLite engine runs this per value of a field (`strata_glob`), so a pattern with many stars over long
 * descriptions must not backtrack.
 */
export function globMatches(pattern: string, value: string): boolean {
  return compiledGlob(pattern).matches(fold(value));
}

/** Globs compiled recently: an engine matches one pattern against many values. */
const globCache = new Map<string, WildcardPattern>();

function compiledGlob(pattern: string): WildcardPattern {
  let compiled = globCache.get(pattern);
  if (compiled === undefined) {
    compiled = WildcardPattern.compile(globTokens(pattern));
    if (globCache.size > 1000) globCache.clear();
    globCache.set(pattern, compiled);
  }
  return compiled;
}

/** True when the analyzed value holds the words in order (the last as a prefix when `prefix`). */
export function wordsMatch(words: readonly string[], prefix: boolean, value: string): boolean {
  const tokens = analyze(value);
  const last = words.length - 1;
  for (let start = 0; start + words.length <= tokens.length; start += 1) {
    let matches = true;
    for (let offset = 0; offset <= last && matches; offset += 1) {
      const token = tokens[start + offset] as string;
      const word = words[offset] as string;
      matches = offset === last && prefix ? token.startsWith(word) : token === word;
    }
    if (matches) return true;
  }
  return false;
}

/**
 * The fields, with their values, that make the document match the query's positive terms (negated terms match
 * nothing): for each term, each of its candidate fields (the named one, else the default-query fields) whose value
 * matches. In schema field order, each (field, value) once.
 */
export function matchedFields(
  fields: Readonly<Record<string, readonly FieldValue[]>>,
  query: QueryNode,
  schema: EntitySearchSchema,
): MatchedField[] {
  const leaves: QueryNode[] = [];
  const collect = (node: QueryNode): void => {
    if (node.kind === 'words' || node.kind === 'wildcard') leaves.push(node);
    else if (node.kind === 'and' || node.kind === 'or') node.nodes.forEach(collect);
  };
  collect(query);
  const matched: MatchedField[] = [];
  const seen = new Set<string>();
  for (const field of schema.fields) {
    const values = fields[field.name];
    if (values === undefined || !field.text) continue;
    for (const leaf of leaves) {
      if (!candidate(leaf, field)) continue;
      for (const raw of values) {
        const value = String(raw);
        const key = `${field.name}\u0000${value}`;
        if (seen.has(key) || !leafMatches(leaf, value)) continue;
        seen.add(key);
        matched.push({ name: field.name, value });
      }
    }
  }
  return matched;
}

function candidate(leaf: QueryNode, field: IndexField): boolean {
  if (leaf.kind !== 'words' && leaf.kind !== 'wildcard') return false;
  return leaf.field === undefined ? field.queryByDefault : leaf.field === field.name;
}

function leafMatches(leaf: QueryNode, value: string): boolean {
  if (leaf.kind === 'words') return wordsMatch(leaf.words, leaf.prefix, value);
  if (leaf.kind === 'wildcard') return globMatches(leaf.pattern, value);
  return false;
}
