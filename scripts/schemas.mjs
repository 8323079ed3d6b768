// npm run schemas: write the JSON Schemas of coursesync.yaml, course.yaml and a chapter's front
// matter into schemas/, from the one field definition (src/tree/schema.ts). A test fails when
// the committed files differ from what the definition gives.
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { jsonSchemas, schemaText } from "../dist/tree/json-schema.js";

const dir = path.join(path.dirname(path.dirname(fileURLToPath(import.meta.url))), "schemas");
const schemas = jsonSchemas();
for (const name of readdirSync(dir)) if (!(name in schemas)) rmSync(path.join(dir, name));
for (const [name, schema] of Object.entries(schemas)) writeFileSync(path.join(dir, name), schemaText(schema));
console.log(`wrote ${Object.keys(schemas).join(", ")} in schemas/`);
