import { types, type Type } from 'avsc';

/**
 * A decoded record in Avro's JSON encoding, as Avro's own JSON encoder writes it (what DataHub's events API answers
 * for each event): fields in schema order; a union's value `null` or wrapped in an object keyed by its branch's name
 * (`{"string": "urn:li:…"}`, `{"com.linkedin.pegasus2avro.mxe.GenericAspect": {…}}`); bytes and fixed as a string of
 * the code points 0–255 of their bytes; enums as their symbol; maps as objects.
 */
export function avroJsonOf(type: Type, value: unknown): unknown {
  if (type instanceof types.RecordType) {
    const record = (value ?? {}) as Record<string, unknown>;
    return Object.fromEntries(type.fields.map((field) => [field.name, avroJsonOf(field.type, record[field.name])]));
  }
  if (type instanceof types.UnwrappedUnionType) {
    if (value === null || value === undefined) return null;
    const branch = type.types.find((member) => member.typeName !== 'null' && member.isValid(value));
    if (branch === undefined) throw new Error(`A value fits no branch of the union ${JSON.stringify(type.schema())}`);
    return { [branchName(branch)]: avroJsonOf(branch, value) };
  }
  if (type instanceof types.WrappedUnionType) {
    if (value === null || value === undefined) return null;
    const [name, inner] = Object.entries(value as Record<string, unknown>)[0] ?? [];
    const branch = type.types.find((member) => branchName(member) === name);
    if (branch === undefined || name === undefined) throw new Error(`A value names no branch of its union: ${name}`);
    return { [name]: avroJsonOf(branch, inner) };
  }
  if (type instanceof types.ArrayType) {
    return (value as unknown[]).map((item) => avroJsonOf(type.itemsType, item));
  }
  if (type instanceof types.MapType) {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, item]) => [
        key,
        avroJsonOf(type.valuesType as Type, item),
      ]),
    );
  }
  if (type instanceof types.BytesType || type instanceof types.FixedType) {
    return Buffer.from(value as Buffer).toString('latin1');
  }
  return value;
}

/** A union branch's name in Avro's JSON encoding: a named type's full name, else the type's name. */
function branchName(type: Type): string {
  return type.name ?? type.typeName;
}
