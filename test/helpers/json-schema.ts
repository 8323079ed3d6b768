/**
 * A small JSON Schema validator for the keywords coursesync's schemas use (type, enum,
 * properties, required, additionalProperties, propertyNames, pattern, minLength, minimum,
 * maximum, minProperties, items): enough to test the schemas without another dependency.
 * Returns one message per failure, each with the path of the value.
 */
export function validate(schema: Record<string, unknown>, value: unknown, at = "$"): string[] {
  const errors: string[] = [];
  const s = schema as {
    type?: string | string[];
    enum?: unknown[];
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
    additionalProperties?: boolean | Record<string, unknown>;
    propertyNames?: Record<string, unknown>;
    pattern?: string;
    minLength?: number;
    minimum?: number;
    maximum?: number;
    minProperties?: number;
    items?: Record<string, unknown>;
  };
  const typeOf = (v: unknown) =>
    v === null ? "null" : Array.isArray(v) ? "array" : Number.isInteger(v) ? "integer" : typeof v;
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    const actual = typeOf(value);
    if (!types.includes(actual) && !(actual === "integer" && types.includes("number"))) {
      return [`${at}: expected ${types.join(" or ")}, got ${actual}`];
    }
  }
  if (s.enum && !s.enum.includes(value)) errors.push(`${at}: not one of ${JSON.stringify(s.enum)}`);
  if (typeof value === "string") {
    if (s.pattern !== undefined && !new RegExp(s.pattern, "u").test(value))
      errors.push(`${at}: does not match ${s.pattern}`);
    if (s.minLength !== undefined && value.length < s.minLength)
      errors.push(`${at}: shorter than ${s.minLength}`);
  }
  if (typeof value === "number") {
    if (s.minimum !== undefined && value < s.minimum) errors.push(`${at}: below ${s.minimum}`);
    if (s.maximum !== undefined && value > s.maximum) errors.push(`${at}: above ${s.maximum}`);
  }
  if (Array.isArray(value) && s.items)
    for (const [i, item] of value.entries()) errors.push(...validate(s.items, item, `${at}[${i}]`));
  if (typeOf(value) === "object") {
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object);
    if (s.minProperties !== undefined && keys.length < s.minProperties) errors.push(`${at}: too few keys`);
    for (const key of s.required ?? []) if (!(key in object)) errors.push(`${at}: ${key} is required`);
    for (const key of keys) {
      if (s.propertyNames) errors.push(...validate(s.propertyNames, key, `${at}.${key} (name)`));
      const property = s.properties?.[key];
      if (property) errors.push(...validate(property, object[key], `${at}.${key}`));
      else if (s.additionalProperties === false) errors.push(`${at}.${key}: not allowed`);
      else if (typeof s.additionalProperties === "object")
        errors.push(...validate(s.additionalProperties, object[key], `${at}.${key}`));
    }
  }
  return errors;
}
