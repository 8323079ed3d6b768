import slugify from "slugify";
import { describe, expect, it } from "vitest";
import {
  type ChapterSlot,
  CONFLICT_COPY_PATTERNS,
  type CourseSlot,
  conflictCopyPath,
  courseFolderContaining,
  fileOfConflictCopy,
  inCourseFolders,
  isConflictCopy,
  planLayout,
} from "../../src/tree/layout.js";
import {
  assignNames,
  chapterFileBase,
  courseFolderBase,
  MAX_SLUG_LENGTH,
  type NameRequest,
  ordinalPrefix,
  ordinalWidth,
  safeSlug,
} from "../../src/tree/naming.js";

/** What every safe name looks like: lowercase ASCII words joined by single dashes. */
const SAFE = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)$/;

describe("safeSlug", () => {
  it.each([
    ["plain words", "Getting Started", "getting-started"],
    ["accents", "Crème brûlée", "creme-brulee"],
    ["Cyrillic", "Привет мир", "privet-mir"],
    ["slashes and backslashes", "a/b\\c", "a-b-c"],
    ["a path out of the tree", "../../etc/passwd", "etc-passwd"],
    ["only dots", "..", "fallback-1"],
    ["a leading dot", ".hidden", "hidden"],
    ["control characters", "\u0000\u0007tab\tnew\nline\u001f", "tab-new-line"],
    ["emoji alone", "🎉🎉🎉", "fallback-1"],
    ["emoji among words", "Party 🎉 time", "party-time"],
    ["CJK", "日本語のコース", "fallback-1"],
    ["blank", "   ", "fallback-1"],
    ["empty", "", "fallback-1"],
    ["runs of separators", "a--b__c..d::e", "a-b-c-d-e"],
    ["a reserved device name", "CON", "con-fallback-1"],
    ["another reserved name", "lpt1", "lpt1-fallback-1"],
    ["a reserved name with an extension", "NUL.md", "nul-md"],
  ])("%s", (_name, input, expected) => {
    const slug = safeSlug(input, "fallback-1");
    expect(slug).toBe(expected);
    expect(slug).toMatch(SAFE);
  });

  it("cuts a 255-character title at a word boundary, within the limit", () => {
    const words = safeSlug("lorem ipsum ".repeat(30).slice(0, 255), "f");
    expect(words.length).toBeLessThanOrEqual(MAX_SLUG_LENGTH);
    expect(words.length).toBeGreaterThan(MAX_SLUG_LENGTH / 2);
    expect(words).toMatch(SAFE);
    expect(words.endsWith("lorem") || words.endsWith("ipsum")).toBe(true);
    const oneWord = safeSlug("x".repeat(255), "f");
    expect(oneWord).toBe("x".repeat(MAX_SLUG_LENGTH));
  });

  it("is safe for anything: never empty, never a path, never reserved", () => {
    const nasty = [
      "/",
      "\\",
      "../..",
      ".",
      "-",
      "--a--",
      "\u202e evil",
      "a\u0000b",
      "C:\\Windows",
      "aux",
      "COM9",
      "prn",
      "x".repeat(300),
      "🙂".repeat(200),
      "中".repeat(255),
      "%2e%2e%2f",
    ];
    for (const text of nasty) {
      const slug = safeSlug(text, "chapter-3");
      expect(slug, text).toMatch(SAFE);
      expect(slug.length, text).toBeLessThanOrEqual(MAX_SLUG_LENGTH + "-chapter-3".length);
      expect(RESERVED.test(slug), text).toBe(false);
    }
  });

  it("is deterministic", () => {
    expect(safeSlug("Ünïcödé Title", "f")).toBe(safeSlug("Ünïcödé Title", "f"));
  });

  it("gives every text the name slugify gives it, whether slugify is asked or not", () => {
    // The names every tree has always had: slugify over the text with its separators as spaces.
    const slugifyName = (text: string) => {
      let slug = slugify(text.replace(/[/\\_.:]+/g, " "), { lower: true, strict: true, trim: true })
        .replace(/[^a-z0-9-]/g, "")
        .replace(/-+/g, "-")
        .replace(/^-|-$/g, "");
      if (slug.length > MAX_SLUG_LENGTH) {
        const cut = slug.slice(0, MAX_SLUG_LENGTH + 1);
        const dash = cut.lastIndexOf("-");
        slug = (dash > MAX_SLUG_LENGTH / 2 ? cut.slice(0, dash) : cut.slice(0, MAX_SLUG_LENGTH)).replace(
          /-$/,
          "",
        );
      }
      return slug === "" ? "f" : RESERVED.test(slug) ? `${slug}-f` : slug;
    };
    let state = 35;
    const random = () => {
      state = (state * 1664525 + 1013904223) >>> 0;
      return state / 2 ** 32;
    };
    const characters = [..."aZ09 /\\_.:!'(),?\"*+~@#;=[]{}^`-$%&<>|\té\u2013🎉Co"];
    const texts = ["Chapter 1", "Course 12: Basics", "A closer look", "It's (nearly) done!", "-a-", "con"];
    for (let i = 0; i < 5000; i++) {
      let text = "";
      const length = Math.floor(random() * (i % 10 === 0 ? 90 : 14));
      for (let j = 0; j < length; j++) text += characters[Math.floor(random() * characters.length)];
      texts.push(text);
    }
    for (const text of texts) {
      expect(safeSlug(text, "f"), JSON.stringify(text)).toBe(slugifyName(text));
    }
  });
});

describe("file and folder bases", () => {
  it("names a course folder from the server's slug, else from the title", () => {
    expect(courseFolderBase({ id: 4, title: "Some Title", slug: "the-slug" })).toBe("the-slug");
    expect(courseFolderBase({ id: 4, title: "Some Title", slug: "" })).toBe("some-title");
    expect(courseFolderBase({ id: 4, title: "Some Title", slug: 42 })).toBe("some-title");
    expect(courseFolderBase({ id: 4, title: "Some Title" })).toBe("some-title");
    expect(courseFolderBase({ id: 4, title: "x", slug: "../../evil" })).toBe("evil");
    expect(courseFolderBase({ id: 4, title: "🎉" })).toBe("course-4");
    expect(courseFolderBase({ id: 4, title: "con" })).toBe("con-course-4");
    expect(courseFolderBase({ id: undefined, title: "🎉" })).toBe("course");
  });

  it("names a chapter file NN-<slug> with a zero-padded ordinal", () => {
    expect(chapterFileBase({ id: 9, title: "Intro", ordinal: 1 }, 2)).toBe("01-intro");
    expect(chapterFileBase({ id: 9, title: "日本語", ordinal: 12 }, 2)).toBe("12-chapter-9");
    expect(chapterFileBase({ id: 9, title: "Intro", ordinal: 7 }, 3)).toBe("007-intro");
    expect(chapterFileBase({ id: 9, title: "CON", ordinal: 0 }, 2)).toBe("00-con-chapter-9");
    expect(ordinalPrefix(-3, 2)).toBe("n03");
    expect(ordinalWidth([1, 2, 3])).toBe(2);
    expect(ordinalWidth([1, 150])).toBe(3);
    expect(ordinalWidth([])).toBe(2);
  });

  it("sizes the prefix of a course with 200,000 chapters (more than a call takes arguments)", () => {
    const ordinals = Array.from({ length: 200_000 }, (_, i) => i + 1);
    expect(ordinalWidth(ordinals)).toBe(6);
    expect(ordinalWidth([...ordinals, -1_234_567])).toBe(7);
  });
});

describe("assignNames", () => {
  const names = (requests: NameRequest[]) => Object.fromEntries(assignNames(requests));

  it("gives collisions -<id>, the lowest id keeping the plain name", () => {
    expect(
      names([
        { id: 8, wanted: "intro" },
        { id: 3, wanted: "intro" },
        { id: 5, wanted: "other" },
      ]),
    ).toEqual({ 3: "intro", 5: "other", 8: "intro-8" });
  });

  it("keeps the name an entity already holds, even against a lower id", () => {
    // 8 holds "intro"; 3 arrives asking for it.
    expect(
      names([
        { id: 3, wanted: "intro" },
        { id: 8, wanted: "intro", current: "intro" },
      ]),
    ).toEqual({ 3: "intro-3", 8: "intro" });
  });

  it("keeps a suffixed name stable when the plain one frees up only if asked for it", () => {
    // 8 was "intro-8" beside 3's "intro"; 3 is gone, 8 asks to keep its name.
    expect(names([{ id: 8, wanted: "intro-8", current: "intro-8" }])).toEqual({ 8: "intro-8" });
  });

  it("compares names without case (case-insensitive file systems)", () => {
    expect(
      names([
        { id: 1, wanted: "Intro", current: "Intro" },
        { id: 2, wanted: "intro" },
      ]),
    ).toEqual({ 1: "Intro", 2: "intro-2" });
  });

  it("never hands out one name twice, whatever the requests", () => {
    const result = names([
      { id: 1, wanted: "a" },
      { id: 2, wanted: "a" },
      { id: 3, wanted: "a-2" },
      { id: 4, wanted: "a-2", current: "a-2" },
      { id: 5, wanted: "a-2" },
    ]);
    expect(new Set(Object.values(result).map((n) => n.toLowerCase())).size).toBe(5);
    expect(result[4]).toBe("a-2");
  });

  it("does not depend on the order of the requests", () => {
    const requests: NameRequest[] = [
      { id: 7, wanted: "x" },
      { id: 2, wanted: "x", current: "x-2" },
      { id: 4, wanted: "y", current: "y" },
      { id: 9, wanted: "y" },
    ];
    expect(names(requests)).toEqual(names([...requests].reverse()));
  });
});

describe("planLayout", () => {
  const course = (id: number, title: string, extra: Partial<CourseSlot> = {}): CourseSlot => ({
    id,
    title,
    keep: false,
    ...extra,
  });
  const chapter = (
    id: number,
    courseId: number,
    title: string,
    ordinal: number,
    extra: Partial<ChapterSlot> = {},
  ): ChapterSlot => ({ id, course: courseId, title, ordinal, keep: false, ...extra });
  const flat = (layout: ReturnType<typeof planLayout>) => ({
    courses: Object.fromEntries(layout.courseFolder),
    chapters: Object.fromEntries(layout.chapterFile),
  });

  it("lays out courses/<slug>/NN-<slug>.md", () => {
    const layout = planLayout(
      [course(1, "Web Basics", { slug: "web-basics" }), course(2, "Python", { slug: "python" })],
      [chapter(10, 1, "Hello, HTML", 1), chapter(11, 1, "CSS", 2), chapter(20, 2, "Setup", 1)],
    );
    expect(flat(layout)).toEqual({
      courses: { 1: "courses/web-basics", 2: "courses/python" },
      chapters: {
        10: "courses/web-basics/01-hello-html.md",
        11: "courses/web-basics/02-css.md",
        20: "courses/python/01-setup.md",
      },
    });
  });

  it("gives two records with one slug distinct names, suffixed by id", () => {
    const layout = planLayout(
      [course(2, "Intro", { slug: "intro" }), course(1, "intro!", { slug: "intro" })],
      [chapter(31, 1, "Intro", 1), chapter(30, 1, "INTRO", 1), chapter(32, 2, "Intro", 1)],
    );
    expect(flat(layout)).toEqual({
      courses: { 1: "courses/intro", 2: "courses/intro-2" },
      chapters: {
        30: "courses/intro/01-intro.md",
        31: "courses/intro/01-intro-31.md",
        32: "courses/intro-2/01-intro.md",
      },
    });
  });

  it("keeps current names of entities whose name did not change, whatever arrives", () => {
    // 31 held "01-intro" before 30 arrived (ids are not creation order on every site).
    const layout = planLayout(
      [course(1, "Renamed on the site", { slug: "new-slug", current: "old-slug", keep: true })],
      [chapter(31, 1, "Intro", 1, { current: "01-intro.md", keep: true }), chapter(30, 1, "Intro", 1)],
    );
    expect(flat(layout)).toEqual({
      courses: { 1: "courses/old-slug" },
      chapters: { 31: "courses/old-slug/01-intro.md", 30: "courses/old-slug/01-intro-30.md" },
    });
  });

  it("renames what is not kept: a new title or ordinal gives a new name", () => {
    const layout = planLayout(
      [course(1, "C", { slug: "c", current: "c", keep: true })],
      [
        chapter(5, 1, "New title", 1, { current: "01-old-title.md" }),
        chapter(6, 1, "Second", 3, { current: "02-second.md" }),
      ],
    );
    expect(flat(layout).chapters).toEqual({ 5: "courses/c/01-new-title.md", 6: "courses/c/03-second.md" });
  });

  it("lets swapped names pass each other", () => {
    const layout = planLayout(
      [course(1, "C", { slug: "c", current: "c", keep: true })],
      [
        chapter(5, 1, "Intro", 2, { current: "01-intro.md" }),
        chapter(6, 1, "Intro", 1, { current: "02-intro.md" }),
      ],
    );
    expect(flat(layout).chapters).toEqual({ 5: "courses/c/02-intro.md", 6: "courses/c/01-intro.md" });
  });

  it("widens every prefix of a course with 100 or more chapters", () => {
    const chapters = Array.from({ length: 100 }, (_, i) => chapter(i + 1, 1, `Part ${i + 1}`, i + 1));
    const layout = planLayout([course(1, "Big", { slug: "big" })], chapters);
    expect(layout.chapterFile.get(1)).toBe("courses/big/001-part-1.md");
    expect(layout.chapterFile.get(100)).toBe("courses/big/100-part-100.md");
  });

  it("is deterministic and stays inside courses/ whatever the titles", () => {
    const titles = ["../../x", "a/b", "CON", "\u0000", "🎉", "日本語", "x".repeat(255), ".git"];
    const courses = titles.map((title, i) => course(i + 1, title, { slug: title }));
    const chapters = titles.map((title, i) => chapter(100 + i, i + 1, title, 1));
    const first = flat(planLayout(courses, chapters));
    expect(flat(planLayout([...courses].reverse(), [...chapters].reverse()))).toEqual(first);
    for (const folder of Object.values(first.courses)) expect(folder).toMatch(/^courses\/[a-z0-9-]+$/);
    for (const file of Object.values(first.chapters))
      expect(file).toMatch(/^courses\/[a-z0-9-]+\/\d{2}-[a-z0-9-]+\.md$/);
    expect(new Set(Object.values(first.courses)).size).toBe(titles.length);
  });
});

describe("the tree's path rules", () => {
  it("name the course folder a path lies in, and nothing outside courses/", () => {
    expect(courseFolderContaining("courses/web/01-intro.md")).toBe("courses/web");
    expect(courseFolderContaining("courses/web/course.yaml")).toBe("courses/web");
    expect(courseFolderContaining("courses/web")).toBe("courses/web");
    expect(courseFolderContaining("courses")).toBeUndefined();
    expect(courseFolderContaining("coursesync.yaml")).toBeUndefined();
    expect(courseFolderContaining("notes/web/01-intro.md")).toBeUndefined();
    const inWeb = inCourseFolders(new Set(["courses/web"]));
    expect(["courses/web/01-intro.md", "courses/webs/01-intro.md", "web/01-intro.md"].map(inWeb)).toEqual([
      true,
      false,
      false,
    ]);
  });

  it("name conflict copies one way, and the ignore patterns match exactly those", () => {
    expect(conflictCopyPath("courses/web/01-intro.md")).toBe("courses/web/01-intro.remote.md");
    expect(conflictCopyPath("courses/web/course.yaml")).toBe("courses/web/course.remote.yaml");
    for (const file of ["courses/web/01-intro.md", "courses/web/course.yaml"]) {
      const copy = conflictCopyPath(file);
      expect(isConflictCopy(copy.split("/").pop()!)).toBe(true);
      expect(fileOfConflictCopy(copy)).toBe(file);
    }
    expect(CONFLICT_COPY_PATTERNS).toEqual(["*.remote.md", "course.remote.yaml"]);
  });
});
