/**
 * The schema files are inconsistent: an Avro schema does not compile, a type or aspect is defined twice, the entity
 * registry names an aspect no schema defines. Thrown at start-up by {@link createEntityRegistry}; a deployment bug,
 * never a client error.
 */
export class SchemaError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SchemaError';
  }
}
