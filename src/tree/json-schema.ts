import { SITE_NAME } from "../config/config.js";
import {
  CHAPTER_FIELDS,
  CONFIG_FIELDS,
  COURSE_FIELDS,
  DATETIME,
  DEFAULT_LIMITS,
  type FieldDef,
  LIMIT_DESCRIPTIONS,
  LIMIT_KEYS,
  PREVIEW_DESCRIPTIONS,
  REFUSED_CHAR,
} from "./schema.js";

/** A JSON Schema (draft-07, which editors' YAML support reads) as plain data. */
export type JsonSchema = { [key: string]: unknown };

const DRAFT = "http://json-schema.org/draft-07/schema#";

/** Text holding none of the characters the site refuses. */
const TEXT_PATTERN = `^[^${REFUSED_CHAR.source.slice(1, -1)}]*$`;

const nullable = (type: string, yes: boolean | undefined) => (yes ? [type, "null"] : type);

/** The schema of one field, from its definition. */
function fieldSchema(def: FieldDef): JsonSchema {
  const { description } = def;
  switch (def.type) {
    case "id":
      return { description, type: "integer", minimum: 1 };
    case "text":
      return {
        description,
        type: nullable("string", "nullable" in def && def.nullable),
        ...("required" in def && def.required ? { minLength: 1 } : {}),
        pattern: TEXT_PATTERN,
      };
    case "boolean":
      return { description, type: nullable("boolean", "nullable" in def && def.nullable) };
    case "datetime":
      // Empty or null: not set.
      return { description, type: ["string", "null"], pattern: `^$|${DATETIME.source}` };
    case "enum":
      return { description, enum: [...def.values] };
    case "integer":
      return {
        description,
        type: "integer",
        ...("min" in def ? { minimum: def.min } : {}),
        ...("max" in def ? { maximum: def.max } : {}),
      };
    case "number":
      return { description, type: nullable("number", def.nullable), minimum: def.min, maximum: def.max };
    case "mirror":
      return { description };
    case "sites":
      return {
        description,
        type: "object",
        minProperties: 1,
        propertyNames: { pattern: SITE_NAME.source },
        additionalProperties: {
          type: "object",
          required: ["url"],
          additionalProperties: false,
          properties: {
            url: {
              description: "The versioned API root, ending in /api/v1; login is at .../api/login.",
              type: "string",
              pattern: "^https?://",
            },
          },
        },
      };
    case "patterns":
      return { description, type: "array", items: { type: "string" } };
    case "preview":
      return {
        description,
        type: ["object", "null"],
        additionalProperties: false,
        properties: {
          stylesheet: { description: PREVIEW_DESCRIPTIONS.stylesheet, type: "string", minLength: 1 },
          site_url: { description: PREVIEW_DESCRIPTIONS.site_url, type: "string", pattern: "^https?://" },
        },
      };
    case "limits":
      return {
        description,
        type: ["object", "null"],
        additionalProperties: false,
        properties: Object.fromEntries(
          LIMIT_KEYS.map((key) => [
            key,
            {
              description: `${LIMIT_DESCRIPTIONS[key]} Default ${DEFAULT_LIMITS[key]}.`,
              type: "integer",
              minimum: 1,
            },
          ]),
        ),
      };
  }
}

/** The schema of a mapping of fields: no other key, the required ones required. */
function objectSchema(
  title: string,
  fields: Record<string, FieldDef>,
  required: readonly string[],
): JsonSchema {
  return {
    $schema: DRAFT,
    title,
    type: "object",
    additionalProperties: false,
    required: [...required],
    properties: Object.fromEntries(Object.entries(fields).map(([key, def]) => [key, fieldSchema(def)])),
  };
}

/** Which fields a new record must set (an existing one has them from pull). */
function requiredOf(fields: Record<string, FieldDef>): string[] {
  return Object.entries(fields)
    .filter(([, def]) => "required" in def && def.required)
    .map(([key]) => key);
}

/** The JSON Schemas coursesync ships, by file name: generated from the one field definition. */
export function jsonSchemas(): Record<string, JsonSchema> {
  return {
    "coursesync.schema.json": objectSchema("coursesync.yaml", CONFIG_FIELDS, ["sites"]),
    "course.schema.json": objectSchema("course.yaml", COURSE_FIELDS, requiredOf(COURSE_FIELDS)),
    "chapter.schema.json": objectSchema("chapter front matter", CHAPTER_FIELDS, requiredOf(CHAPTER_FIELDS)),
  };
}

/** A schema as the file that holds it: two-space JSON and a trailing newline. */
export function schemaText(schema: JsonSchema): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
