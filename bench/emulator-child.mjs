// The built-in emulator in a process of its own, so that its CPU is neither the CLI's nor the
// benchmark's and nothing the benchmark does stalls its answers. Options as JSON in argv[2];
// prints `{"baseUrl", "loginUrl"}` as one line on stdout once it listens. Over IPC (bench/
// remote-emulator.mjs sends them) it answers { id, op, ... } with { id, result } or { id, error }:
// seed-editor, seed-large, list-answers (the list requests answered and the epoch ms of the
// last one), clear, counts, edit-chapter, close.

import { mulberry32 } from "../dist/emulator/faults.js";
import { startEmulator } from "../dist/emulator/server.js";
import { editorChapter, largeEditorChapter } from "./editor-html.mjs";
import { seedLargeSite } from "./seed.mjs";

const LIST = /\/api\/v1\/(courses|chapters)$/;
let listAnswers = 0;
let lastListAt = null;
const emulator = await startEmulator({
  ...JSON.parse(process.argv[2] ?? "{}"),
  onAnswered(request) {
    if (request.method !== "GET" || !LIST.test(request.path)) return;
    listAnswers++;
    // The answer is made here and sent right after, in the same turn.
    lastListAt = performance.timeOrigin + performance.now();
  },
});

/** `courses` courses x `chapters` editor-style chapters, plus one of `largeBytes` in the first course. */
function seedEditor({ courses, chapters, largeBytes, seed }) {
  const random = mulberry32(seed);
  const sizes = [];
  let firstCourse;
  for (let c = 1; c <= courses; c++) {
    const course = emulator.state.createCourse({
      course: {
        title: `Course ${c}: ${editorTitle(random)}`,
        status: c % 3 ? 1 : 0,
        excerpt: `About course ${c}`,
      },
    });
    if (course.kind !== "ok") throw new Error(JSON.stringify(course));
    firstCourse ??= course.value.id;
    for (let n = 1; n <= chapters; n++) sizes.push(addChapter(course.value.id, n, editorChapter(random)));
  }
  let large = 0;
  if (largeBytes > 0) large = addChapter(firstCourse, chapters + 1, largeEditorChapter(random, largeBytes));
  sizes.sort((a, b) => a - b);
  const total = sizes.reduce((sum, size) => sum + size, 0) + large;
  return { chapters: sizes.length + (large ? 1 : 0), medianBytes: sizes[sizes.length >> 1], large, total };
}

function editorTitle(random) {
  return ["Basics", "Next steps", "In practice", "A closer look", "Review"][Math.floor(random() * 5)];
}

function addChapter(courseId, ordinal, content) {
  const chapter = emulator.state.createChapter({
    chapter: { course_id: courseId, title: `Chapter ${ordinal}`, ordinal, content },
  });
  if (chapter.kind !== "ok") throw new Error(JSON.stringify(chapter));
  return Buffer.byteLength(content);
}

const ops = {
  "seed-editor": seedEditor,
  "seed-large": (args) => seedLargeSite(emulator.state, args) ?? null,
  "list-answers": () => ({ listAnswers, lastListAt }),
  clear() {
    listAnswers = 0;
    lastListAt = null;
    emulator.state.clearRequests();
    return null;
  },
  counts() {
    const dump = emulator.state.dump();
    return { courses: dump.courses.length, chapters: dump.chapters.length };
  },
  "edit-chapter"({ index }) {
    const chapter = emulator.state.dump().chapters[index];
    emulator.state.edit("chapters", chapter.id, { title: `${chapter.title}, edited on the site` });
    return chapter.id;
  },
  async close() {
    await emulator.close();
    setImmediate(() => process.exit(0));
    return null;
  },
};

process.on("message", async ({ id, op, args }) => {
  try {
    if (!ops[op]) throw new Error(`emulator-child: no operation "${op}"`);
    process.send({ id, result: await ops[op](args ?? {}) });
  } catch (error) {
    process.send({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
process.on("disconnect", () => emulator.close().then(() => process.exit(0)));
console.log(JSON.stringify({ baseUrl: emulator.baseUrl, loginUrl: emulator.loginUrl }));
