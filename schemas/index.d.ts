/** One parsed `.avsc` file. */
export interface SchemaFile {
  /** Path relative to the schemas directory, e.g. `aspects/common/Ownership.avsc`. */
  readonly file: string;
  readonly schema: unknown;
}

export interface SchemaFiles {
  /** Parsed `entity-registry.json`. */
  readonly entityRegistry: unknown;
  /** Every `.avsc` under `aspects/`, in path order. */
  readonly aspects: readonly SchemaFile[];
  /** Every `.avsc` under `events/`, in path order. */
  readonly events: readonly SchemaFile[];
}

/** Reads every schema file (synchronously; call once at start-up). Throws naming the file that does not parse. */
export function readSchemas(): SchemaFiles;

/** Absolute path of the schemas directory. */
export const schemasDirectory: string;
