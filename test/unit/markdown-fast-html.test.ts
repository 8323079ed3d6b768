import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { type DefaultTreeAdapterTypes, html, parseFragment } from "parse5";
import { describe, expect, it } from "vitest";
import { fastParseFragment } from "../../src/tree/markdown/fast-html.js";
import { htmlToBody, markdownToHtml } from "../../src/tree/markdown/index.js";
import { seededRandom } from "../helpers/random.js";

type ChildNode = DefaultTreeAdapterTypes.ChildNode;

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.join(here, "..", "fixtures", "editor-html");
const spec = createRequire(import.meta.url)("commonmark-spec") as {
  tests: Array<{ html: string; markdown: string }>;
};

/** A tree as plain data: every field the gate and the converter read, nothing left out. */
function shape(nodes: readonly ChildNode[]): unknown[] {
  return nodes.map((node) => {
    if (node.nodeName === "#text") return { text: (node as DefaultTreeAdapterTypes.TextNode).value };
    if (node.nodeName === "#comment") return { comment: (node as DefaultTreeAdapterTypes.CommentNode).data };
    const element = node as DefaultTreeAdapterTypes.Element;
    const children =
      element.tagName === "template" && "content" in element
        ? (element as DefaultTreeAdapterTypes.Template).content.childNodes
        : element.childNodes;
    return {
      nodeName: element.nodeName,
      tagName: element.tagName,
      namespace: element.namespaceURI,
      attrs: element.attrs.map((attr) => [
        attr.name,
        attr.value,
        attr.namespace ?? null,
        attr.prefix ?? null,
      ]),
      children: shape(children),
    };
  });
}

/** Inputs the fast path read differently from parse5 (there must be none), and how many it read. */
function compare(inputs: readonly string[]): { differ: string[]; accepted: number } {
  const differ: string[] = [];
  let accepted = 0;
  for (const html of inputs) {
    const fast = fastParseFragment(html);
    if (fast === undefined) continue;
    accepted++;
    if (JSON.stringify(shape(fast.childNodes)) !== JSON.stringify(shape(parseFragment(html).childNodes))) {
      differ.push(html);
    }
  }
  return { differ, accepted };
}

/** Seeded HTML: mostly well formed, with every kind of thing the tree-construction rules treat apart. */
function generatedHtml(count: number, seed: number): string[] {
  const { random, pick, below } = seededRandom(seed);
  const tags = [
    ...["span", "sup", "kbd", "o:p", "my-widget", "SPAN", "video", "label"],
    ...["b", "i", "a", "strong", "em", "code", "font", "u", "s", "small"],
    ...["p", "div", "ul", "ol", "li", "dl", "dd", "dt", "h1", "h2", "pre", "listing", "blockquote"],
    ...["section", "figure", "details", "summary", "center", "table", "thead", "tbody", "tr", "td", "th"],
    ...["caption", "colgroup", "col", "br", "img", "input", "wbr", "source", "hr", "iframe", "textarea"],
    ...["script", "style", "title", "xmp", "noscript", "select", "option", "button", "form", "nobr"],
    ...["svg", "math", "template", "body", "html", "head", "image", "object", "ruby", "rt", "plaintext"],
    ...["meta", "link", "base"],
  ];
  const texts = [
    ...["x", "word", " ", "\n", "\t", "\f", "\u00a0", "é", ">", '"', "'", "=", "/"],
    ...["&amp;", "&lt;", "&gt;", "&quot;", "&nbsp;", "&ndash;", "&NotEqualTilde;", "&notit;", "&amp", "& "],
    ...["&#65;", "&#x41;", "&#X1F600;", "&#0;", "&#128;", "&#13;", "&#xD800;", "&#1114112;", "&#;", "&"],
    ...["<", "< x", "<3", "</>", "</ x>", "<!-- c -->", "<!---->", "<!-->", "<!--a--b-->", "<!--a-", "<!x>"],
    ...["<!DOCTYPE html>", "<?x?>", "<![CDATA[x]]>", "\r\n", "\r", "\0", "\ufeff"],
  ];
  const attribute = () =>
    pick([
      () => ` class="c"`,
      () => ` href='/a?b=1&amp;c=2'`,
      () => ` title="a &quot;b&quot; &notit; &#10;"`,
      () => ` data-x="&ampx"`,
      () => ` id=x`,
      () => ` ID="UP"`,
      () => ` a="1" a="2"`,
      () => ` a = "spaced"`,
      () => " hidden",
      () => ` alt="<b>"`,
      () => `\n\tstyle="color:red"`,
      () => ` x:y="z"`,
      () => ` "q"`,
    ])();
  const text = () =>
    random() < 0.15
      ? pick(texts)
      : Array.from({ length: 1 + below(3) }, () => pick(["x", "word", " ", "\n", "&amp;", "é"])).join("");
  const node = (depth: number): string => {
    if (depth > 4 || random() < 0.3) return text();
    const tag = pick(tags);
    const attrs = random() < 0.3 ? attribute() + (random() < 0.2 ? attribute() : "") : "";
    if (random() < 0.05) return `<${tag}${attrs}/>`;
    const open = `<${tag}${attrs}${random() < 0.05 ? " " : ""}>`;
    const content = Array.from({ length: below(4) }, () => node(depth + 1)).join(pick(["", "", "\n"]));
    const close = pick([
      `</${tag}>`,
      `</${tag}>`,
      `</${tag}>`,
      `</${tag.toUpperCase()}>`,
      `</${tag} >`,
      "",
      `</${pick(tags)}>`,
    ]);
    return `${open}${random() < 0.1 ? "\n" : ""}${content}${close}`;
  };
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + below(4) }, () => node(0)).join(pick(["", "\n", "\n\n"])),
  );
}

/** Seeded well-formed documents of the kinds the pull step reads: lists, tables, inline markup. */
function wellFormedHtml(count: number, seed: number): string[] {
  const { pick, below } = seededRandom(seed);
  const text = () => pick(["Text", "a &amp; b", "x &lt; y", "caf\u00e9", "&nbsp;", "line\nbreak", " "]);
  // No link inside a link: the parser closes the first (a case of its own, in the list below).
  const inline = (depth: number, inLink = false): string =>
    depth > 2
      ? text()
      : pick([
          text,
          () => `<strong>${inline(depth + 1, inLink)}</strong>`,
          () => `<em>${inline(depth + 1, inLink)}</em>${text()}`,
          () => (inLink ? text() : `<a href="/p?a=1&amp;b=2" title="t">${inline(depth + 1, true)}</a>`),
          () => `<code>${text()}</code>`,
          () => `<span style="color: red">${inline(depth + 1, inLink)}</span>`,
          () => `<img src="/i.png" alt="${pick(["", "cat"])}">`,
          () => "<br>\n",
          () => "<!-- note -->",
        ])();
  const block = (depth: number): string =>
    pick([
      () => `<p>${inline(0)}${inline(0)}</p>`,
      () => {
        const level = 1 + below(6);
        return `<h${level}>${inline(0)}</h${level}>`;
      },
      () => `<pre><code class="language-js">${pick(["\n", ""])}let a = 1 &lt; 2;\n</code></pre>`,
      () => `<pre>\n\nkept</pre>`,
      () => (depth < 2 ? `<blockquote>\n${block(depth + 1)}\n</blockquote>` : "<hr>"),
      () => {
        const list = pick(["ul", "ol"]);
        return depth < 2
          ? `<${list}>\n<li>${inline(0)}</li>\n<li><p>${inline(0)}</p>${block(depth + 1)}</li>\n</${list}>`
          : "<hr />";
      },
      () => `<dl><dt>${text()}</dt><dd>${inline(0)}</dd></dl>`,
      () =>
        `<table>\n<thead>\n<tr>\n<th style="text-align:left">${inline(1)}</th>\n</tr>\n</thead>\n` +
        `<tbody>\n<tr>\n<td>${depth < 2 ? block(depth + 1) : text()}</td>\n</tr>\n</tbody>\n</table>`,
      () => `<iframe src="https://v.example/1" allowfullscreen></iframe>`,
      () => `<div class="note">${depth < 2 ? block(depth + 1) : text()}</div>`,
    ])();
  return Array.from({ length: count }, () => Array.from({ length: 1 + below(5) }, () => block(0)).join("\n"));
}

describe("the fast HTML path builds parse5's tree or declines", () => {
  const specHtml = [...new Set(spec.tests.map((test) => test.html.replace(/→/g, "\t")))];
  const specMarkdown = [...new Set(spec.tests.map((test) => test.markdown.replace(/→/g, "\t")))];
  const editorHtml = readdirSync(fixtures)
    .filter((name) => name.endsWith(".html"))
    .map((name) => readFileSync(path.join(fixtures, name), "utf8"));

  it("on the CommonMark spec's HTML and on markdown-it's rendering of its Markdown", () => {
    const { differ, accepted } = compare([...specHtml, ...specMarkdown.map(markdownToHtml)]);
    expect(differ).toEqual([]);
    // It must also be a fast path in practice: nearly all of this is plainly well formed.
    expect(accepted).toBeGreaterThan(0.85 * (specHtml.length + specMarkdown.length));
  });

  it("on the editor corpus, and on the HTML its Markdown bodies render to", () => {
    const rendered = editorHtml
      .map((html) => htmlToBody(html))
      .filter(({ format }) => format === "markdown")
      .map(({ body }) => markdownToHtml(body));
    const { differ, accepted } = compare([...editorHtml, ...rendered]);
    expect(differ).toEqual([]);
    expect(accepted).toBeGreaterThan(0.9 * (editorHtml.length + rendered.length));
  });

  it("on generated HTML full of what the tree-construction rules repair", () => {
    const inputs = generatedHtml(4000, 20261122);
    const { differ, accepted } = compare(inputs);
    expect(differ).toEqual([]);
    expect(accepted).toBeGreaterThan(400);
    expect(accepted).toBeLessThan(inputs.length);
  });

  it("on generated well-formed documents, which it reads whole", () => {
    const inputs = wellFormedHtml(1500, 7);
    const { differ, accepted } = compare(inputs);
    expect(differ).toEqual([]);
    expect(accepted).toBe(inputs.length);
  });

  it("for every tag parse5 knows by name, in every kind of context", () => {
    // parse5's own list: a tag that gains a rule of its own in a later parse5 is caught here.
    const contexts = [
      (tag: string) => tag,
      (tag: string) => `<p>a${tag}c</p>`,
      (tag: string) => `<div>${tag}</div><p>after</p>`,
      (tag: string) => `<ul><li>${tag}</li></ul>`,
      (tag: string) => `<h2>${tag}</h2>`,
      (tag: string) => `<table><tbody><tr><td>${tag}</td></tr></tbody></table>`,
      (tag: string) => `<table>${tag}</table>`,
      (tag: string) => `<table><tbody>${tag}</tbody></table>`,
      (tag: string) => `<a href="/x">${tag}</a>`,
      (tag: string) => `<pre>${tag}</pre>`,
    ];
    const inputs: string[] = [];
    for (const name of Object.values(html.TAG_NAMES)) {
      for (const tag of [
        `<${name}>x</${name}>`,
        `<${name} class="c">\nx</${name}>`,
        `<${name}>`,
        `<${name}/>`,
        // Inside itself, and around a block: where formatting and scoping rules show.
        `<${name}><${name}>x</${name}></${name}>`,
        `<${name}>a<div>b</div>c</${name}>`,
      ]) {
        for (const context of contexts) inputs.push(context(tag));
      }
    }
    const { differ, accepted } = compare(inputs);
    expect(differ).toEqual([]);
    expect(accepted).toBeGreaterThan(1000);
  });

  it("declines every input whose tree the parser repairs or reads specially", () => {
    const repaired = [
      "<p>a<div>b</div></p>",
      "<p>a<ul><li>b</li></ul>",
      "<h1><h2>a</h2></h1>",
      "<li>outside a list</li>",
      "<dd>outside a list</dd>",
      "<table><tr><td>a</td></tr></table>",
      "<table>text</table>",
      "<table><tbody><tr><td>a</td></tr></tbody>&nbsp;</table>",
      "<tr><td>a</td></tr>",
      "<b>a<i>b</b>c</i>",
      "<a href=x>a</a>",
      "<a>one<a>two</a></a>",
      "<b><b><b><b>deep</b></b></b></b>",
      "<p>a</p></div>",
      "a</br>b",
      "<span/>",
      "a\r\nb",
      "a\0b",
      "\ufeffa",
      "x &notit; y",
      "x &amp y",
      "x &#0; y",
      "x &#128; y",
      "<pre>&#10;a</pre>",
      '<p a = "1">x</p>',
      "<!-->",
      "<!--a--b-->",
      "<!DOCTYPE html><p>a</p>",
      "<select><option>a</option></select>",
      "<svg><circle/></svg>",
      "<template><p>a</p></template>",
      "<textarea>a</textarea>",
      "<iframe>a",
      "a < b",
    ];
    expect(repaired.filter((html) => fastParseFragment(html) !== undefined)).toEqual([]);
  });

  it("reads what is plainly well formed, including what the rules treat apart but leave as is", () => {
    const plain = [
      '<p class="a">x &amp; y &nbsp; &ndash; &#65; &#x1F600;</p>',
      "<pre>\ncode</pre>",
      "<ul>\n<li>a<ul><li>b</li></ul></li>\n</ul>",
      "<table>\n<thead><tr><th>h</th></tr></thead>\n<tbody><tr><td><p>c</p></td></tr></tbody>\n</table>",
      '<iframe src="/v"></iframe><p>after</p>',
      "<o:p></o:p><my-widget>w</my-widget>",
      '<IMG SRC="a.png" alt="x" alt="y">',
      "a & b <!-- note --> c",
      '<meta charset="utf-8"><b id="x">pasted</b><link rel="x">',
      "<p>unclosed at the end",
    ];
    for (const html of plain) {
      const fast = fastParseFragment(html);
      expect(fast, html).toBeDefined();
      expect(shape(fast!.childNodes)).toEqual(shape(parseFragment(html).childNodes));
    }
  });
});
