// Fill a running emulator's state with a large synthetic site.
/** Add `courses` courses with `chapters` chapters each, bodies of about `bodyBytes` bytes. */
export function seedLargeSite(state, { courses, chapters, bodyBytes = 1500 }) {
  const paragraph =
    '<p>Course authors write <strong>real</strong> text with <a href="https://example.com/x">links</a>, ' +
    "<em>emphasis</em> and entities like &amp; and &mdash; across many lines of content.</p>\n";
  const body = paragraph.repeat(Math.max(1, Math.round(bodyBytes / paragraph.length)));
  for (let c = 1; c <= courses; c++) {
    const course = state.createCourse({
      course: { title: `Course number ${c}`, status: c % 3 ? 1 : 0, excerpt: `About course ${c}` },
    });
    if (course.kind !== "ok") throw new Error(JSON.stringify(course));
    const courseId = course.value.id;
    for (let n = 1; n <= chapters; n++) {
      const chapter = state.createChapter({
        chapter: {
          course_id: courseId,
          title: `Chapter ${n} of course ${c}`,
          ordinal: n,
          content: `<h2>Part ${n}</h2>\n${body}`,
        },
      });
      if (chapter.kind !== "ok") throw new Error(JSON.stringify(chapter));
    }
  }
}
