import { diffWords } from "diff";
import { markerBlocksOf } from "../tree/bodies/conflict-markers.js";
import { COURSES_DIR } from "../tree/layout.js";
import type { FileProblem } from "../tree/yaml-text.js";
import { type ChapterLook, chapterFrame, esc, type Page, seg } from "./html.js";
import type {
  ChapterHtml,
  PreviewChapter,
  PreviewCourse,
  PreviewModel,
  PreviewState,
  StateLine,
} from "./model.js";

// The preview's pages, rendered on the server from the model: the index, a course, a chapter
// and a chapter's changes since the last sync.

/** The URL of a course page. */
export function courseHref(course: PreviewCourse): string {
  return `/courses/${seg(course.name)}`;
}

/** The URL of a chapter page. */
export function chapterHref(course: PreviewCourse, chapter: PreviewChapter): string {
  return `/chapters/${seg(course.name)}/${seg(chapter.name)}`;
}

/** The URL of a chapter's changes since the last sync. */
export function diffHref(course: PreviewCourse, chapter: PreviewChapter): string {
  return `${chapterHref(course, chapter)}/diff`;
}

const WORDS: Record<PreviewState, string> = {
  unchanged: "unchanged",
  modified: "modified",
  new: "new",
  conflict: "conflict",
  invalid: "invalid",
  deleted: "deleted",
  moved: "moved",
  renamed: "renamed",
  untracked: "untracked",
};

/** A state as a badge: its word and a stable hook (`data-state`). */
function badge(state: PreviewState): string {
  return `<span class="state state-${state}" data-state="${state}">${WORDS[state]}</span>`;
}

/** Each state line with its message (and the fields changed), as status says it. */
function stateList(states: readonly StateLine[]): string {
  const lines = states.filter((line) => line.message !== undefined || line.fields !== undefined);
  if (lines.length === 0) return "";
  const items = lines.map((line) => {
    const fields = line.fields?.length ? ` (${line.fields.join(", ")})` : "";
    const copy = line.copy
      ? ` <span class="copy">The site's version: <code>${esc(line.copy)}</code></span>`
      : "";
    return `<li>${badge(line.state)} ${esc(`${line.message ?? ""}${fields}`.trim())}${copy}</li>`;
  });
  return `<ul class="message">${items.join("")}</ul>`;
}

/** A file's problems, each with its line. */
function problemList(problems: readonly FileProblem[]): string {
  return problems
    .map(
      (p) =>
        `<div class="problem" role="alert" data-line="${p.line ?? ""}"><strong>${esc(p.file)}${p.line === undefined ? "" : ` line ${p.line}`}</strong>: ${esc(p.problem)}${p.hint ? `<br><span class="message">${esc(p.hint)}</span>` : ""}</div>`,
    )
    .join("");
}

function chapterItem(course: PreviewCourse, chapter: PreviewChapter): string {
  const label = esc(chapter.title);
  const link = chapter.deleted ? label : `<a href="${esc(chapterHref(course, chapter))}">${label}</a>`;
  return `<li id="chapter-${esc(chapter.name)}" data-path="${esc(chapter.file)}" data-state="${chapter.state}">${link}${badge(chapter.state)}</li>`;
}

function chapterList(course: PreviewCourse): string {
  if (course.chapters.length === 0) return `<p class="message">No chapters.</p>`;
  return `<ol class="chapters">${course.chapters.map((c) => chapterItem(course, c)).join("")}</ol>`;
}

/**
 * Up to this many chapters in the tree, the index lists each course's chapters; above, it says
 * how many each course has and how many are pending (its course page lists them), so that the
 * index of a large tree stays a page a browser opens at once.
 */
export const INDEX_CHAPTERS = 2000;

/** A course's chapter count and its pending ones by state, for an index too large to list them. */
function chapterCount(course: PreviewCourse): string {
  const pending = course.chapters.filter((chapter) => chapter.state !== "unchanged").length;
  const n = course.chapters.length;
  return `<p class="message chapter-count" data-chapters="${n}" data-pending="${pending}">${n} chapter${n === 1 ? "" : "s"}${pending === 0 ? "" : `, ${pending} pending`}</p>`;
}

/** One course on the index, as a reader meets it: title, status, excerpt, chapters. */
function courseCard(course: PreviewCourse, listChapters: boolean): string {
  const { status, excerpt } = course.values;
  return `<section class="course" id="course-${esc(course.name)}" data-path="${esc(course.folder)}" data-state="${course.state}" aria-labelledby="h-${esc(course.name)}">
<h2 id="h-${esc(course.name)}"><a href="${esc(courseHref(course))}">${esc(course.title)}</a>${badge(course.state)}</h2>
${typeof status === "string" ? `<p class="message">Status: ${esc(status)}</p>` : ""}
${typeof excerpt === "string" && excerpt !== "" ? `<p class="excerpt">${esc(excerpt)}</p>` : ""}
${stateList(course.states)}${problemList(course.problems)}
${listChapters ? chapterList(course) : chapterCount(course)}
</section>`;
}

/** What is pending in the tree, counted by state, as one line. */
function summary(model: PreviewModel): string {
  const counts = new Map<PreviewState, number>();
  for (const record of model.courses.flatMap((course) => [course, ...course.chapters])) {
    if (record.state !== "unchanged") counts.set(record.state, (counts.get(record.state) ?? 0) + 1);
  }
  const parts = [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([state, n]) => `${n} ${WORDS[state]}`);
  return `<p id="summary">${parts.length === 0 ? "Nothing pending: the tree matches the last sync." : `Pending: ${parts.join(", ")}.`}</p>`;
}

/** Courses on one page of the index: a tree of more has its index on several pages. */
export const INDEX_COURSES = 500;

/** How many pages the index of a model takes. */
export function indexPages(model: PreviewModel): number {
  return Math.max(1, Math.ceil(model.courses.length / INDEX_COURSES));
}

/** Links to each page of a long index, the current one marked. */
function indexNav(number: number, pages: number): string {
  if (pages === 1) return "";
  const links = Array.from({ length: pages }, (_, i) =>
    i + 1 === number ? `<a aria-current="page">${i + 1}</a>` : `<a href="/?page=${i + 1}">${i + 1}</a>`,
  );
  return `<nav class="index-pages" aria-label="Pages of the index"><p>Page ${number} of ${pages}: ${links.join(" ")}</p></nav>`;
}

/**
 * `/` (`/?page=<n>` for a tree of more than INDEX_COURSES courses): the courses in the site's
 * order, with their chapters in ordinal order (or their count, above INDEX_CHAPTERS chapters).
 */
export function indexPage(model: PreviewModel, number = 1): Page {
  const warnings = model.warnings.map((w) => `<p class="problem">${esc(w)}</p>`).join("");
  const list = model.courses.reduce((n, course) => n + course.chapters.length, 0) <= INDEX_CHAPTERS;
  const shown = model.courses.slice((number - 1) * INDEX_COURSES, number * INDEX_COURSES);
  const nav = indexNav(number, indexPages(model));
  const body =
    model.courses.length === 0
      ? `<p>No course folder in ${esc(COURSES_DIR)}/ to show.</p>`
      : shown.map((course) => courseCard(course, list)).join("\n");
  return {
    title: number === 1 ? "Courses" : `Courses, page ${number}`,
    trail: [{ label: "Courses" }],
    live: { watch: COURSES_DIR, html: `<h1>Courses</h1>${summary(model)}${warnings}${nav}${body}${nav}` },
  };
}

function valueList(values: Record<string, unknown>): string {
  const rows = Object.entries(values)
    .filter(([, value]) => value !== undefined)
    .map(
      ([key, value]) =>
        `<dt>${esc(key)}</dt><dd>${esc(typeof value === "string" ? value : JSON.stringify(value))}</dd>`,
    );
  return `<dl class="values">${rows.join("")}</dl>`;
}

/** `/courses/<name>`: course.yaml's values, its state, and its chapters. */
export function coursePage(course: PreviewCourse): Page {
  const html = `<h1>${esc(course.title)}${badge(course.state)}</h1>
${stateList(course.states)}${problemList(course.problems)}
<h2>${esc(course.file)}</h2>${valueList(course.values)}
<h2>Chapters</h2>${chapterList(course)}`;
  return {
    title: course.title,
    trail: [{ label: "Courses", href: "/" }, { label: course.title }],
    live: { watch: course.folder, html },
  };
}

/** A file's text with line numbers; problem lines and conflict markers marked as such. */
export function fileLines(text: string, problems: readonly FileProblem[]): string {
  const bad = new Set(problems.map((p) => p.line));
  const markers = new Set<number>();
  const lines = text.split("\n");
  for (const block of markerBlocksOf(text, "none", { chapter: true })) {
    for (let i = block.line; i < lines.length; i++) {
      if (/^(<{7,}|={7,}|>{7,}|\|{7,})/.test(lines[i] ?? "")) markers.add(i + 1);
      if (i > block.line && (lines[i] ?? "").startsWith(">".repeat(block.size))) break;
    }
  }
  const rows = lines.map((line, i) => {
    const n = i + 1;
    const kind = markers.has(n) ? "marker" : bad.has(n) ? "bad" : "";
    return `<span class="${kind}" id="L${n}"${kind ? ` data-kind="${kind}"` : ""}><span class="ln">${n}</span> ${esc(line)}</span>`;
  });
  return `<pre class="file" aria-label="the file, line by line">${rows.join("\n")}</pre>`;
}

/** `/chapters/<course>/<file>`: the chapter as the site gets it, or its problem in place. */
export function chapterPage(
  course: PreviewCourse,
  chapter: PreviewChapter,
  shown: ChapterHtml,
  text: string | undefined,
  look: ChapterLook = {},
): Page {
  const links = `<p><a href="${esc(diffHref(course, chapter))}" id="diff-link">Changes since the last sync</a></p>`;
  const content =
    "html" in shown && chapter.problems.length === 0
      ? chapterFrame(shown.html, chapter.title, look)
      : `${"none" in shown ? `<p class="message">${esc(shown.none)}</p>` : ""}${text === undefined ? "" : fileLines(text, chapter.problems)}`;
  const html = `<h1>${esc(chapter.title)}${badge(chapter.state)}</h1>
<p class="message">${esc(chapter.file)}${chapter.ordinal === undefined ? "" : ` · chapter ${chapter.ordinal}`}</p>
${stateList(chapter.states)}${problemList(chapter.problems)}${links}
<div id="chapter-content" data-state="${chapter.state}">${content}</div>`;
  return {
    title: chapter.title,
    trail: [
      { label: "Courses", href: "/" },
      { label: course.title, href: courseHref(course) },
      { label: chapter.title },
    ],
    live: { watch: chapter.file, html },
  };
}

/** What a diff page compares: the last sync's file text and the file now. */
export interface DiffTexts {
  before: string;
  after: string;
  what: string;
  missingBase?: boolean;
}

/** The word-by-word changes of a text: removed words in `del`, added ones in `ins`. */
export function wordDiff(before: string, after: string): string {
  return diffWords(before, after)
    .map((part) =>
      part.added
        ? `<ins>${esc(part.value)}</ins>`
        : part.removed
          ? `<del>${esc(part.value)}</del>`
          : esc(part.value),
    )
    .join("");
}

/** The link that asks for the site's current version (the site is read only when it is followed). */
function siteLink(course: PreviewCourse, chapter: PreviewChapter): string {
  return `<p><a href="${esc(diffHref(course, chapter))}?against=site" id="against-site" class="button">Compare with the site now</a> <span class="message">(reads the site once)</span></p>`;
}

/** `/chapters/<course>/<file>/diff`: the chapter file against the last sync, word by word. */
export function diffPage(course: PreviewCourse, chapter: PreviewChapter, texts: DiffTexts | undefined): Page {
  const body =
    texts === undefined
      ? `<p id="no-diff">No change since the last sync.</p>`
      : texts.missingBase
        ? `<p class="message">The last sync's text is neither in the content cache nor in git: no word diff can be shown.</p>`
        : `<p class="message">${esc(texts.what)}: <del>removed</del> and <ins>added</ins> words.</p><div class="diff" id="word-diff">${wordDiff(texts.before, texts.after)}</div>`;
  const html = `<h1>Changes in ${esc(chapter.title)}${badge(chapter.state)}</h1>
<p class="message">${esc(chapter.file)} against the last sync</p>
<p><a href="${esc(chapterHref(course, chapter))}">Back to the chapter</a></p>${siteLink(course, chapter)}${body}`;
  return {
    title: `Changes in ${chapter.title}`,
    trail: [
      { label: "Courses", href: "/" },
      { label: course.title, href: courseHref(course) },
      { label: chapter.title, href: chapterHref(course, chapter) },
      { label: "Changes" },
    ],
    live: { watch: chapter.file, html },
  };
}

/** A page that is not there (a file renamed or deleted since the link was made). */
export function missingPage(what: string, watch: string): Page {
  return {
    title: "Not found",
    trail: [{ label: "Courses", href: "/" }, { label: "Not found" }],
    live: {
      watch,
      html: `<h1>Not found</h1><p id="missing">${esc(what)}</p><p><a href="/">All courses</a></p>`,
    },
  };
}

/**
 * `/chapters/<course>/<file>/diff?against=site`: the file against the site's current record,
 * word by word, as read once when asked (saves do not read the site again: its part is not live).
 */
export function siteDiffPage(
  course: PreviewCourse,
  chapter: PreviewChapter,
  result: DiffTexts | { none: string } | undefined,
): Page {
  const body =
    result === undefined
      ? `<p id="no-diff">The file matches the site.</p>`
      : "none" in result
        ? `<p class="message" id="no-diff">${esc(result.none)}</p>`
        : `<p class="message">${esc(result.what)}: <del>only on the site</del> and <ins>only here</ins>.</p><div class="diff" id="word-diff">${wordDiff(result.before, result.after)}</div>`;
  const html = `<h1>${esc(chapter.title)} against the site${badge(chapter.state)}</h1>
<p class="message">${esc(chapter.file)} against the site's current version</p>
<p><a href="${esc(diffHref(course, chapter))}">Changes since the last sync</a> · <a href="${esc(diffHref(course, chapter))}?against=site" id="against-site">Compare again</a></p>${body}`;
  return {
    title: `${chapter.title} against the site`,
    trail: [
      { label: "Courses", href: "/" },
      { label: course.title, href: courseHref(course) },
      { label: chapter.title, href: chapterHref(course, chapter) },
      { label: "Against the site" },
    ],
    live: { watch: "", html },
  };
}
