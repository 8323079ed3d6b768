import { describe, expect, it } from "vitest";
import { equivalentHtml } from "../../src/tree/markdown/gate.js";
import { htmlToBody, markdownBodies, markdownToHtml } from "../../src/tree/markdown/index.js";
import { FileProblem } from "../../src/tree/yaml-text.js";

/** The body for some HTML, checked the way a pull would rely on it: lossless and stable. */
function bodyOf(html: string) {
  const result = htmlToBody(html);
  expect(equivalentHtml(markdownBodies.toHtml(result.body, result.format, "c.md"), html)).toBe(true);
  if (result.format === "markdown") expect(htmlToBody(markdownToHtml(result.body)).body).toBe(result.body);
  return result;
}

function markdownOf(html: string): string {
  const result = bodyOf(html);
  expect(result.format).toBe("markdown");
  return result.body;
}

describe("htmlToBody writes plain Markdown where Markdown says it all", () => {
  it.each([
    [
      "a heading and inline markup",
      "<h2>Title</h2>\n<p>Some <strong>bold</strong>, <em>italic</em>, <s>gone</s> and <code>code</code>.</p>",
      "## Title\n\nSome **bold**, *italic*, ~~gone~~ and `code`.",
    ],
    [
      "a link with a title and an image",
      '<p><a href="https://example.com/x" title="T">a link</a> and <img src="/a.png" alt="a cat"></p>',
      '[a link](https://example.com/x "T") and ![a cat](/a.png)',
    ],
    [
      "tight lists, nested",
      "<ul>\n<li>one</li>\n<li>two\n<ul>\n<li>nested</li>\n</ul>\n</li>\n</ul>",
      "- one\n- two\n  - nested",
    ],
    [
      "an ordered list with a start",
      '<ol start="3">\n<li>three</li>\n<li>four</li>\n</ol>',
      "3. three\n4. four",
    ],
    ["a loose list", "<ul>\n<li>\n<p>one</p>\n</li>\n<li>\n<p>two</p>\n</li>\n</ul>", "- one\n\n- two"],
    ["two lists in a row", "<ul><li>a</li></ul><ul><li>b</li></ul>", "- a\n\n* b"],
    [
      "a quote, a rule and fenced code",
      '<blockquote>\n<p>quoted</p>\n</blockquote>\n<hr>\n<pre><code class="language-js">let x = 1;\n</code></pre>',
      "> quoted\n\n***\n\n```js\nlet x = 1;\n```",
    ],
    [
      "code holding backticks",
      "<pre><code>a ``` b\n</code></pre><p>x <code>`y`</code></p>",
      "````\na ``` b\n````\n\nx `` `y` ``",
    ],
    [
      "a table with alignment",
      '<table><thead><tr><th>A</th><th style="text-align:right">B</th></tr></thead><tbody><tr><td>1</td><td style="text-align:right">2</td></tr></tbody></table>',
      "| A | B |\n| --- | ---: |\n| 1 | 2 |",
    ],
    ["line breaks", "<p>Line one<br>\nLine two<br>three</p>", "Line one\\\nLine two<br>three"],
    ["an empty chapter", "", ""],
  ])("%s", (_name, html, markdown) => {
    expect(markdownOf(html)).toBe(markdown);
  });
});

describe("htmlToBody escapes text so that it reads back as the same text", () => {
  it.each([
    [
      "block syntax at a line start",
      "<p># not a heading<br>\n1. not a list<br>\n- not a bullet<br>\n&gt; not a quote<br>\n===</p>",
      "\\# not a heading\\\n1\\. not a list\\\n\\- not a bullet\\\n\\> not a quote\\\n\\===",
    ],
    [
      "inline syntax",
      "<p>a * b _c_ [d] `e` &lt;div&gt; &amp;amp; | ~ \\ x_y</p>",
      "a \\* b \\_c\\_ \\[d] \\`e\\` \\<div> \\&amp; \\| \\~ \\ x_y",
    ],
    [
      "whitespace Markdown would drop",
      "<p>two  \nspaces and\n   indented, then\n\nan empty line</p>",
      "two &#32;\nspaces and\n&#32;  indented, then\n&#10;an empty line",
    ],
    ["a non-breaking space", "<p>0.1&nbsp;g</p>", "0.1&nbsp;g"],
    ["a trailing # in a heading", "<h2>C #</h2>", "## C \\#"],
  ])("%s", (_name, html, markdown) => {
    expect(markdownOf(html)).toBe(markdown);
  });

  it("never links a plain URL or e-mail address, nor makes quotes or dashes typographic", () => {
    const html = '<p>Visit https://example.com or mail me@example.com -- "quoted" (c) ...</p>';
    expect(markdownOf(html)).toBe('Visit https://example.com or mail me@example.com -- "quoted" (c) ...');
    expect(markdownToHtml("www.example.com, https://example.com, a@b.org -- \"x\" 'y' (c) (tm) +-")).toBe(
      "<p>www.example.com, https://example.com, a@b.org -- &quot;x&quot; 'y' (c) (tm) +-</p>\n",
    );
  });
});

describe("htmlToBody keeps what Markdown cannot say as HTML", () => {
  it.each([
    [
      "spans with style, u, sub, sup, kbd, b and i",
      '<p>See <span style="color:red">red <em>text</em></span>, <u>u</u>, H<sub>2</sub>O, x<sup>2</sup>, <kbd>Ctrl</kbd>, <b>b</b>, <i>i</i>.</p>',
      'See <span style="color:red">red _text_</span>, <u>u</u>, H<sub>2</sub>O, x<sup>2</sup>, <kbd>Ctrl</kbd>, <b>b</b>, <i>i</i>.',
    ],
    [
      "a link with a target",
      '<p>Go <a href="/x" target="_blank">there</a>.</p>',
      'Go <a href="/x" target="_blank">there</a>.',
    ],
    [
      "a link Markdown would rewrite",
      '<p><a href="https://example.com/a b">x</a></p>',
      '<a href="https://example.com/a b">x</a>',
    ],
    ["a comment", "<p>one</p><!-- comment --><p>two</p>", "one\n\n<!-- comment -->\n\ntwo"],
    ["an empty paragraph spacer", "<p>&nbsp;</p>", "<p>&nbsp;</p>"],
    ["a pre without code", "<pre>no code</pre>", "<pre>no code</pre>"],
    ["code without a final line end", "<pre><code>x = 1</code></pre>", "<pre><code>x = 1</code></pre>"],
    [
      "a table without a header row",
      "<table><tr><td>cell</td></tr></table>",
      "<table><tbody><tr><td>cell</td></tr></tbody></table>",
    ],
    [
      "a table with attributes",
      '<table class="x"><thead><tr><th>a</th></tr></thead></table>',
      '<table class="x"><thead><tr><th>a</th></tr></thead></table>',
    ],
    [
      "a paragraph with a class",
      '<p class="lead">Hi <em>there</em></p>',
      '<p class="lead">Hi <em>there</em></p>',
    ],
    [
      "a definition list",
      "<dl>\n<dt>term</dt>\n<dd>definition</dd>\n</dl>",
      "<dl>\n<dt>term</dt>\n<dd>definition</dd>\n</dl>",
    ],
    [
      "a figure",
      '<figure><img src="/a.png" alt=""><figcaption>c</figcaption></figure>',
      '<figure><img src="/a.png" alt=""><figcaption>c</figcaption></figure>',
    ],
    [
      "an embedded video",
      '<p><iframe src="https://www.youtube.com/embed/x"></iframe></p>',
      '<p><iframe src="https://www.youtube.com/embed/x"></iframe></p>',
    ],
    [
      "a list item with a style, inside a list",
      '<ul><li>a</li><li style="color:red">b</li></ul>',
      '<ul><li>a</li><li style="color:red">b</li></ul>',
    ],
    [
      "a block with a class inside a quote",
      '<blockquote><p class="x">a</p></blockquote>',
      '> <p class="x">a</p>',
    ],
    ["blank lines inside kept HTML", "<div>a\n\n\nb</div>", "<div>a&#10;&#10;\nb</div>"],
    [
      "blank lines inside kept code",
      '<pre class="x"><code>a\n\nb</code></pre>',
      '<pre class="x"><code>a\n\nb</code></pre>',
    ],
  ])("%s", (_name, html, markdown) => {
    expect(markdownOf(html)).toBe(markdown);
  });

  it("writes emphasis as tags where delimiters cannot open or close", () => {
    expect(markdownOf("<p><strong>Note:</strong>text and <em>more</em></p>")).toBe(
      "<strong>Note:</strong>text and *more*",
    );
    expect(markdownOf("<p>foo<strong>(bar)</strong>baz <em> spaced</em></p>")).toBe(
      "foo<strong>(bar)</strong>baz <em> spaced</em>",
    );
  });

  it("falls back to tags for a whole block when its Markdown reads differently", () => {
    // `![…]` drops escaped characters from the description in markdown-it: the image stays a tag.
    expect(markdownOf('<p>An <img src="/a.png" alt="*starred*"> image</p>')).toBe(
      'An <img src="/a.png" alt="*starred*"> image',
    );
  });

  it("keeps a chapter nested deeper than the converter can follow as HTML", () => {
    const html = `<p>${"<em>".repeat(20_000)}x${"</em>".repeat(20_000)}</p>`;
    expect(htmlToBody(html)).toEqual({ body: html, format: "html" });
  });

  it("keeps the whole chapter as HTML when even HTML blocks cannot hold it", () => {
    expect(bodyOf("just text, no paragraph")).toEqual({ body: "just text, no paragraph", format: "html" });
    const video = '<p>Watch:</p>\n<video src="/v.mp4" controls></video>';
    expect(bodyOf(video)).toEqual({ body: video, format: "html" });
  });
});

describe("markdownBodies", () => {
  it("keeps HTML with a lone surrogate exact, as JSON", () => {
    const html = "<p>\uD83D</p>";
    const body = markdownBodies.fromHtml(html);
    expect(body).toEqual({ body: JSON.stringify(html), format: "json" });
    expect(markdownBodies.toHtml(body.body, body.format, "c.md")).toBe(html);
  });

  it("sends an html body verbatim and renders a Markdown one", () => {
    expect(markdownBodies.toHtml("<p>x</p>\n", "html", "c.md")).toBe("<p>x</p>\n");
    expect(markdownBodies.toHtml("# T\n\n*x*", "markdown", "c.md")).toBe("<h1>T</h1>\n<p><em>x</em></p>\n");
  });

  it("reports a json body that is not one JSON string, naming the file", () => {
    expect(() => markdownBodies.toHtml("{", "json", "courses/a/01-x.md")).toThrow(FileProblem);
  });
});
