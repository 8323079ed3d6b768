import { describe, expect, it } from "vitest";
import type { PreviewChapter, PreviewCourse, PreviewModel, PreviewState } from "../../src/preview/model.js";
import { coursePage, INDEX_CHAPTERS, INDEX_COURSES, indexPage, indexPages } from "../../src/preview/pages.js";

function chapter(folder: string, n: number, state: PreviewState): PreviewChapter {
  const name = `${String(n).padStart(2, "0")}-part-${n}.md`;
  return {
    file: `${folder}/${name}`,
    name,
    id: n,
    title: `Part ${n} of ${folder}`,
    ordinal: n,
    state,
    states: [{ state }],
    problems: [],
    invalid: false,
    deleted: false,
  };
}

/** A model of `courses` courses of `chapters` chapters each; the first chapter of each is modified. */
function model(courses: number, chapters: number): PreviewModel {
  const list: PreviewCourse[] = [];
  for (let c = 1; c <= courses; c++) {
    const folder = `courses/course-${c}`;
    list.push({
      folder,
      name: `course-${c}`,
      file: `${folder}/course.yaml`,
      id: c,
      values: { title: `Course ${c}`, status: "published", excerpt: `About course ${c}` },
      title: `Course ${c}`,
      state: "unchanged",
      states: [{ state: "unchanged" }],
      problems: [],
      invalid: false,
      chapters: Array.from({ length: chapters }, (_, i) =>
        chapter(folder, i + 1, i === 0 ? "modified" : "unchanged"),
      ),
    });
  }
  return {
    site: { name: "production", url: "http://site.invalid" },
    root: "/tree",
    courses: list,
    warnings: [],
  } as unknown as PreviewModel;
}

describe("the preview's index", () => {
  it("lists every chapter of a tree up to INDEX_CHAPTERS chapters", () => {
    const html = indexPage(model(INDEX_CHAPTERS / 10, 10)).live.html;
    expect(html).toContain('data-path="courses/course-1/01-part-1.md"');
    expect(html).toContain(`Part 10 of courses/course-${INDEX_CHAPTERS / 10}`);
  });

  it("above INDEX_CHAPTERS lists each course with its chapter and pending counts (its chapters on its page), INDEX_COURSES a page", () => {
    const big = model(5000, 10);
    const html = indexPage(big).live.html;
    expect(html).not.toContain("01-part-1.md");
    expect(html).toContain("Course 500<");
    expect(html).toContain("About course 500<");
    expect(html).toContain(
      '<p class="message chapter-count" data-chapters="10" data-pending="1">10 chapters, 1 pending</p>',
    );
    // The summary counts the whole tree.
    expect(html).toContain("Pending: 5000 modified.");
    // A page a browser opens at once: well under 200 bytes a chapter.
    // A page a browser opens at once: INDEX_COURSES courses, with links to the others.
    expect(html.length).toBeLessThan(300_000);
    expect(html).toContain('Page 1 of 10: <a aria-current="page">1</a> <a href="/?page=2">2</a>');
    expect(html).not.toContain("Course 501<");
    expect(indexPages(big)).toBe(5000 / INDEX_COURSES);
    expect(indexPage(big, 10).live.html).toContain("Course 5000<");
    expect(coursePage(big.courses[0]!).live.html).toContain('data-path="courses/course-1/10-part-10.md"');
  });
});
