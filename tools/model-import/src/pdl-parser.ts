/**
 * A parser for Pegasus's schema language (PDL), enough of it for DataHub's metadata models: one named type per file
 * with its namespace and imports, records (with `includes`), enums, typerefs, fixed types, inline named types, arrays,
 * maps, unions (with member aliases), optional fields, defaults, and annotations (`@Name.path = <JSON>`). Comments and
 * doc comments are dropped: the importer carries the facts of a model, never its prose.
 */

export type Annotations = Record<string, unknown>;

export type PdlType =
  | { readonly kind: 'primitive'; readonly name: string }
  | { readonly kind: 'reference'; readonly name: string }
  | { readonly kind: 'array'; readonly items: PdlType }
  | { readonly kind: 'map'; readonly values: PdlType }
  | { readonly kind: 'union'; readonly members: readonly UnionMember[] }
  | { readonly kind: 'named'; readonly declaration: NamedDeclaration };

export interface UnionMember {
  readonly alias: string | undefined;
  readonly type: PdlType;
  readonly annotations: Annotations;
}

export interface PdlField {
  readonly name: string;
  readonly type: PdlType;
  readonly optional: boolean;
  readonly hasDefault: boolean;
  readonly defaultValue: unknown;
  readonly annotations: Annotations;
}

interface Declared {
  /** Full name: namespace and name. */
  readonly name: string;
  readonly annotations: Annotations;
}

export type NamedDeclaration =
  | (Declared & {
      readonly kind: 'record';
      readonly includes: readonly PdlType[];
      readonly fields: readonly PdlField[];
    })
  | (Declared & { readonly kind: 'enum'; readonly symbols: readonly string[] })
  | (Declared & { readonly kind: 'typeref'; readonly target: PdlType })
  | (Declared & { readonly kind: 'fixed'; readonly size: number });

export interface PdlFile {
  readonly namespace: string;
  /** The file's top-level type. */
  readonly declaration: NamedDeclaration;
  /** Every named type the file declares, the top-level one first, then inline ones in order. */
  readonly declarations: readonly NamedDeclaration[];
}

export class PdlSyntaxError extends Error {
  constructor(source: string, line: number, reason: string) {
    super(`${source}:${line}: ${reason}`);
    this.name = 'PdlSyntaxError';
  }
}

const PRIMITIVES = new Set(['string', 'int', 'long', 'float', 'double', 'boolean', 'bytes', 'null']);

type TokenKind = 'identifier' | 'string' | 'number' | 'punctuation';
interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly line: number;
}

const TOKEN_PATTERN =
  /\s+|\/\/[^\n]*|\/\*[\s\S]*?\*\/|(?<identifier>[A-Za-z_$][A-Za-z0-9_$]*|`[^`]+`)|(?<string>"(?:[^"\\]|\\.)*")|(?<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(?<punctuation>[{}[\]():,=@.])/y;

function tokenize(text: string, source: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  TOKEN_PATTERN.lastIndex = 0;
  while (TOKEN_PATTERN.lastIndex < text.length) {
    const start = TOKEN_PATTERN.lastIndex;
    const match = TOKEN_PATTERN.exec(text);
    if (match === null) throw new PdlSyntaxError(source, line, `unexpected character ${JSON.stringify(text[start])}`);
    const groups = match.groups ?? {};
    const kind = (['identifier', 'string', 'number', 'punctuation'] as const).find(
      (name) => groups[name] !== undefined,
    );
    if (kind !== undefined) {
      const raw = match[0];
      tokens.push({ kind, text: kind === 'identifier' ? raw.replace(/^`|`$/g, '') : raw, line });
    }
    for (const char of match[0]) if (char === '\n') line++;
  }
  return tokens;
}

/** Parses one `.pdl` file; `source` names it in errors. */
export function parsePdl(text: string, source: string): PdlFile {
  return new Parser(tokenize(text, source), source).file();
}

class Parser {
  private position = 0;
  private namespace = '';
  private readonly imports = new Map<string, string>();
  private readonly declarations: NamedDeclaration[] = [];

  constructor(
    private readonly tokens: readonly Token[],
    private readonly source: string,
  ) {}

  file(): PdlFile {
    if (this.acceptWord('namespace')) this.namespace = this.qualifiedName();
    if (this.acceptWord('package')) this.qualifiedName();
    while (this.acceptWord('import')) {
      const name = this.qualifiedName();
      this.imports.set(name.slice(name.lastIndexOf('.') + 1), name);
    }
    const annotations = this.annotations();
    const declaration = this.namedDeclaration(annotations);
    if (declaration === undefined) return this.fail('expected record, enum, typeref or fixed');
    if (this.peek() !== undefined) return this.fail(`unexpected ${this.describe(this.peek())} after the type`);
    return { namespace: this.namespace, declaration, declarations: this.declarations };
  }

  private namedDeclaration(annotations: Annotations): NamedDeclaration | undefined {
    const keyword = this.peek();
    if (keyword?.kind !== 'identifier') return undefined;
    if (!['record', 'enum', 'typeref', 'fixed'].includes(keyword.text)) return undefined;
    // `record` etc. name a declaration only when a name follows; a field may be called `record`.
    const next = this.tokens[this.position + 1];
    if (next?.kind !== 'identifier') return undefined;
    this.position += 2;
    const name = this.fullName(next.text);
    const index = this.declarations.length;
    this.declarations.push(undefined as never); // keeps the top-level type first
    let declaration: NamedDeclaration;
    switch (keyword.text) {
      case 'record': {
        const includes: PdlType[] = [];
        if (this.acceptWord('includes')) {
          do includes.push(this.type());
          while (this.accept(','));
        }
        this.expect('{');
        const fields: PdlField[] = [];
        while (!this.accept('}')) {
          fields.push(this.field());
          this.accept(',');
        }
        declaration = { kind: 'record', name, annotations, includes, fields };
        break;
      }
      case 'enum': {
        this.expect('{');
        const symbols: string[] = [];
        while (!this.accept('}')) {
          this.annotations();
          symbols.push(this.identifier());
          this.accept(',');
        }
        declaration = { kind: 'enum', name, annotations, symbols };
        break;
      }
      case 'typeref':
        this.expect('=');
        declaration = { kind: 'typeref', name, annotations, target: this.type() };
        break;
      default: {
        const size = this.next();
        if (size.kind !== 'number') return this.fail('expected the size of the fixed type');
        declaration = { kind: 'fixed', name, annotations, size: Number(size.text) };
      }
    }
    this.declarations[index] = declaration;
    return declaration;
  }

  private field(): PdlField {
    const annotations = this.annotations();
    const name = this.identifier();
    this.expect(':');
    const optional = this.acceptWord('optional');
    const type = this.type();
    const hasDefault = this.accept('=');
    const defaultValue = hasDefault ? this.json() : undefined;
    return { name, type, optional, hasDefault, defaultValue, annotations };
  }

  private type(): PdlType {
    const annotations = this.annotations();
    const declared = this.namedDeclaration(annotations);
    if (declared !== undefined) return { kind: 'named', declaration: declared };
    if (Object.keys(annotations).length > 0) return this.fail('annotations must precede a field or a named type');
    const word = this.peek();
    if (word?.kind === 'identifier' && this.tokens[this.position + 1]?.text === '[') {
      if (word.text === 'array') {
        this.position += 2;
        const items = this.type();
        this.expect(']');
        return { kind: 'array', items };
      }
      if (word.text === 'map') {
        this.position += 2;
        const keys = this.type();
        if (keys.kind !== 'primitive' || keys.name !== 'string') return this.fail('map keys must be string');
        this.expect(',');
        const values = this.type();
        this.expect(']');
        return { kind: 'map', values };
      }
      if (word.text === 'union') {
        this.position += 2;
        const members: UnionMember[] = [];
        while (!this.accept(']')) {
          const memberAnnotations = this.annotations();
          const aliased = this.peek()?.kind === 'identifier' && this.tokens[this.position + 1]?.text === ':';
          const alias = aliased ? this.identifier() : undefined;
          if (aliased) this.expect(':');
          members.push({ alias, type: this.type(), annotations: memberAnnotations });
          this.accept(',');
        }
        return { kind: 'union', members };
      }
    }
    const name = this.qualifiedName();
    if (PRIMITIVES.has(name)) return { kind: 'primitive', name };
    return { kind: 'reference', name: this.resolve(name) };
  }

  /** A name as written, resolved against the imports and the file's namespace. */
  private resolve(name: string): string {
    if (name.includes('.')) return name;
    return this.imports.get(name) ?? this.fullName(name);
  }

  private fullName(name: string): string {
    return this.namespace === '' || name.includes('.') ? name : `${this.namespace}.${name}`;
  }

  /** `@a.b = <JSON>` annotations; one without a value is `true`. Dotted names nest: `@java.class = "X"`. */
  private annotations(): Annotations {
    const annotations: Annotations = {};
    while (this.accept('@')) {
      const path = [this.identifier()];
      while (this.accept('.')) path.push(this.identifier());
      const value = this.accept('=') ? this.json() : true;
      let target = annotations;
      path.slice(0, -1).forEach((segment) => {
        const existing = target[segment];
        if (typeof existing !== 'object' || existing === null || Array.isArray(existing)) target[segment] = {};
        target = target[segment] as Annotations;
      });
      target[path[path.length - 1] as string] = value;
    }
    return annotations;
  }

  private json(): unknown {
    const token = this.next();
    if (token.kind === 'string') return JSON.parse(token.text) as unknown;
    if (token.kind === 'number') return Number(token.text);
    if (token.kind === 'identifier') {
      if (token.text === 'true') return true;
      if (token.text === 'false') return false;
      if (token.text === 'null') return null;
    }
    if (token.text === '[') {
      const items: unknown[] = [];
      while (!this.accept(']')) {
        items.push(this.json());
        this.accept(',');
      }
      return items;
    }
    if (token.text === '{') {
      const object: Record<string, unknown> = {};
      while (!this.accept('}')) {
        const key = this.next();
        if (key.kind !== 'string') return this.fail(`expected a quoted key, found ${this.describe(key)}`);
        this.expect(':');
        Object.defineProperty(object, JSON.parse(key.text) as string, {
          value: this.json(),
          enumerable: true,
          writable: true,
          configurable: true,
        });
        this.accept(',');
      }
      return object;
    }
    return this.fail(`expected a JSON value, found ${this.describe(token)}`);
  }

  private qualifiedName(): string {
    const parts = [this.identifier()];
    while (this.accept('.')) parts.push(this.identifier());
    return parts.join('.');
  }

  private identifier(): string {
    const token = this.next();
    if (token.kind !== 'identifier') return this.fail(`expected a name, found ${this.describe(token)}`);
    return token.text;
  }

  private acceptWord(word: string): boolean {
    const token = this.peek();
    if (token?.kind !== 'identifier' || token.text !== word) return false;
    this.position++;
    return true;
  }

  private accept(punctuation: string): boolean {
    const token = this.peek();
    if (token?.kind !== 'punctuation' || token.text !== punctuation) return false;
    this.position++;
    return true;
  }

  private expect(punctuation: string): void {
    if (!this.accept(punctuation)) this.fail(`expected "${punctuation}", found ${this.describe(this.peek())}`);
  }

  private peek(): Token | undefined {
    return this.tokens[this.position];
  }

  private next(): Token {
    const token = this.tokens[this.position];
    if (token === undefined) return this.fail('unexpected end of file');
    this.position++;
    return token;
  }

  private describe(token: Token | undefined): string {
    return token === undefined ? 'the end of the file' : JSON.stringify(token.text);
  }

  private fail(reason: string): never {
    const token = this.tokens[Math.min(this.position, this.tokens.length - 1)];
    throw new PdlSyntaxError(this.source, token?.line ?? 1, reason);
  }
}
