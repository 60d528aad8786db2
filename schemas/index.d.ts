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

/** An operator's own models, read from a directory (see `docs/custom-models.md`). */
export interface CustomModelFiles {
  /** The directory, as given. */
  readonly directory: string;
  /** Parsed `entity-registry.json` of the directory, when it has one. */
  readonly entityRegistry: unknown;
  /** Every `.avsc` under the directory, in path order, with paths relative to it. */
  readonly aspects: readonly SchemaFile[];
}

/** Reads an operator's model directory (synchronously, at start-up). Throws naming a file that does not parse. */
export function readCustomModels(directory: string): CustomModelFiles;

/** One SDL file of Strata's GraphQL schema. */
export interface GraphqlSchemaFile {
  /** Path relative to the schemas directory, e.g. `graphql/entities.graphql`. */
  readonly file: string;
  readonly text: string;
}

/** Reads the SDL files of Strata's GraphQL API (synchronously; call once at start-up). */
export function readGraphqlSchema(): readonly GraphqlSchemaFile[];
