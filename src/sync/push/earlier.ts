import type { BodyCodec } from "../../tree/bodies.js";
import { parseChapterFile } from "../../tree/chapter-file.js";
import { parseCourseFile } from "../../tree/course-file.js";
import { recordFilePath } from "../../tree/layout.js";
import { courseValuesOfFile } from "../model/entities.js";
import type { FileHistory } from "../state/file-history.js";
import { courseInput, type PushOp } from "./plan.js";

// What an earlier run may have created a new file's record from: the create fields of each
// version of the file that git holds (a clone whose ids never came back, a publish retried on a
// newer tip where the file was edited since). Adoption looks for each on the site before a
// create is sent (see Adopter).

type CreateOp = Extract<PushOp, { type: "create" }>;

/** The create fields of one committed text of a record file; undefined when it does not parse. */
function fieldsOfText(
  op: CreateOp,
  text: string,
  bodies: BodyCodec,
  courseId: unknown,
): Record<string, unknown> | undefined {
  const file = recordFilePath(op.kind, op.path);
  try {
    if (op.kind === "course") {
      const values = courseValuesOfFile(parseCourseFile(text, file));
      const fields: Record<string, unknown> = { ...courseInput(values, Object.keys(values)) };
      for (const key of Object.keys(fields)) if (fields[key] === null) delete fields[key];
      return fields;
    }
    const chapter = parseChapterFile(text, file);
    if (chapter.content !== undefined) return undefined;
    const content = bodies.toHtml(chapter.body, chapter.format, file);
    return { title: chapter.title, ordinal: chapter.ordinal, content, course_id: courseId };
  } catch {
    return undefined;
  }
}

/**
 * The create fields of the committed versions of a new file, newest first, each with the course
 * the file is in now; versions that send what the file sends now are left out (already looked for).
 */
export function earlierFieldsOf(history: FileHistory, bodies: BodyCodec) {
  return async (op: CreateOp, fields: Record<string, unknown>): Promise<Array<Record<string, unknown>>> => {
    const now = JSON.stringify(fields);
    const out: Array<Record<string, unknown>> = [];
    for (const text of await history(recordFilePath(op.kind, op.path))) {
      const version = fieldsOfText(op, text, bodies, fields.course_id);
      if (version && JSON.stringify(version) !== now) out.push(version);
    }
    return out;
  };
}
