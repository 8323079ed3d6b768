import { describe, expect, it } from "vitest";
import { equivalentHtml } from "../../src/tree/markdown/gate.js";

describe("the equivalence gate forgives what the parse erases", () => {
  it.each([
    ["entity spelling", "<p>a &amp; b &lt; c</p>", "<p>a &#38; b &#x3C; c</p>"],
    ["a named entity against its character", "<p>0.1&nbsp;g &mdash; x</p>", "<p>0.1\u00a0g \u2014 x</p>"],
    ["attribute order", '<a href="/x" title="t">x</a>', '<a title="t" href="/x">x</a>'],
    ["attribute quoting", "<a href=/x title='t'>x</a>", '<a href="/x" title="t">x</a>'],
    ["attribute name case", '<A HREF="/x">x</A>', '<a href="/x">x</a>'],
    ["<br> against <br/>", "<p>a<br>b</p>", "<p>a<br/>b</p>"],
    ["optional end tags", "<p>a<p>b<ul><li>c<li>d</ul>", "<p>a</p><p>b</p><ul><li>c</li><li>d</li></ul>"],
    ["the line end right after <pre>", "<pre>\ncode\n</pre>", "<pre>code\n</pre>"],
    [
      "whitespace between blocks",
      "<h2>T</h2>\n\n  <p>a</p>\n<ul>\n  <li>x</li>\n</ul>",
      "<h2>T</h2><p>a</p><ul><li>x</li></ul>",
    ],
    [
      "whitespace at the edges of a block",
      "<p>\n\tText here </p><li>\n  item\n</li>",
      "<p>Text here</p><li>item</li>",
    ],
    ["whitespace around the whole fragment", "\n  <p>a</p>\n\n", "<p>a</p>"],
    [
      "whitespace next to a block inside inline content",
      "<div>a\n<p>b</p>\n c</div>",
      "<div>a<p>b</p>c</div>",
    ],
    [
      "whitespace around a comment between blocks",
      "<p>a</p>\n<!-- c -->\n<p>b</p>",
      "<p>a</p><!-- c --><p>b</p>",
    ],
  ])("%s", (_name, a, b) => {
    expect(equivalentHtml(a, b)).toBe(true);
    expect(equivalentHtml(b, a)).toBe(true);
  });
});

describe("the equivalence gate never forgives a change", () => {
  it.each([
    ["b for strong", "<p><b>x</b></p>", "<p><strong>x</strong></p>"],
    ["i for em", "<p><i>x</i></p>", "<p><em>x</em></p>"],
    ["a doubled space inside text", "<p>a b</p>", "<p>a  b</p>"],
    ["a line end for a space inside text", "<p>a\nb</p>", "<p>a b</p>"],
    ["whitespace after <br>", "<p>a<br>b</p>", "<p>a<br>\nb</p>"],
    ["whitespace at the edge of inline markup", "<p><em> x</em></p>", "<p><em>x</em></p>"],
    ["whitespace between inline elements", "<p><em>a</em> <em>b</em></p>", "<p><em>a</em><em>b</em></p>"],
    ["whitespace next to a comment inside text", "<p>a <!-- c -->b</p>", "<p>a<!-- c -->b</p>"],
    ["a non-breaking space for a space", "<p>a&nbsp;b</p>", "<p>a b</p>"],
    ["an attribute value", '<a href="/x">x</a>', '<a href="/y">x</a>'],
    ["the order of classes", '<p class="a b">x</p>', '<p class="b a">x</p>'],
    ["an added attribute", '<img src="x" alt="">', '<img src="x" alt="" title="">'],
    ["a dropped attribute", '<img src="x" alt="y">', '<img src="x">'],
    ["values swapped between attributes", '<img src="x" alt="y">', '<img src="y" alt="x">'],
    ["an attribute for another of the same count", '<img src="x" alt="y">', '<img src="x" title="y">'],
    [
      "an attribute's namespace",
      '<svg><a xlink:href="x" id="i"></a></svg>',
      '<svg><a href="x" id="i"></a></svg>',
    ],
    ["a dropped comment", "<p>a</p><!-- keep me --><p>b</p>", "<p>a</p><p>b</p>"],
    ["a changed comment", "<!-- a -->", "<!--a-->"],
    ["a trailing line end inside pre", "<pre><code>x\n</code></pre>", "<pre><code>x</code></pre>"],
    ["indentation inside pre", "<pre><code>  x\n</code></pre>", "<pre><code>x\n</code></pre>"],
    ["whitespace at the edge of pre", "<pre> x</pre>", "<pre>x</pre>"],
    ["whitespace inside textarea", "<textarea>a </textarea>", "<textarea>a</textarea>"],
    ["whitespace inside script", "<script>a()\n</script>", "<script>a()</script>"],
    ["whitespace inside svg text", "<svg><text> a</text></svg>", "<svg><text>a</text></svg>"],
    ["a paragraph around inline content", "plain text", "<p>plain text</p>"],
    ["an added empty paragraph", "<p>a</p>", "<p>a</p><p></p>"],
    ["a tag name", "<h2>x</h2>", "<h3>x</h3>"],
    ["text that moved out of an element", "<p><em>a</em>b</p>", "<p><em>ab</em></p>"],
    ["a template's content", "<template><p>a</p></template>", "<template><p>b</p></template>"],
  ])("%s", (_name, a, b) => {
    expect(equivalentHtml(a, b)).toBe(false);
    expect(equivalentHtml(b, a)).toBe(false);
  });
});
