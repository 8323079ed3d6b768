// Chapters as rich-text editors write them (headings, paragraphs with inline marks and entities,
// lists, tables, code blocks, images, embedded videos), from a seeded PRNG: the same site on
// every run. A chapter is a few blocks (median about 740 bytes); a large one is blocks up to a size.

const WORDS = (
  "the a course lesson students learn write read code function value list table step example " +
  "project module chapter practice question answer data model test build design note idea " +
  "simple quick careful each every first next last small large open close start finish review"
).split(" ");
const ENTITIES = ["&amp;", "&nbsp;", "&mdash;", "&lt;", "&gt;", "&quot;", "&#8217;", "&eacute;", "&copy;"];

const pick = (random, list) => list[Math.floor(random() * list.length)];
const between = (random, low, high) => low + Math.floor(random() * (high - low + 1));

function words(random, low, high) {
  const out = [];
  for (let i = between(random, low, high); i > 0; i--) out.push(pick(random, WORDS));
  return out.join(" ");
}

/** A run of text with inline marks, a link, and an entity now and then. */
function inline(random, low, high) {
  const parts = [];
  for (let i = between(random, 1, 3); i > 0; i--) {
    const text = words(random, low, high);
    const roll = random();
    if (roll < 0.2) parts.push(`<strong>${text}</strong>`);
    else if (roll < 0.35) parts.push(`<em>${text}</em>`);
    else if (roll < 0.45) parts.push(`<a href="https://example.com/${pick(random, WORDS)}">${text}</a>`);
    else if (roll < 0.55) parts.push(`<code>${pick(random, WORDS)}()</code> ${text}`);
    else parts.push(text);
    if (random() < 0.4) parts.push(pick(random, ENTITIES));
  }
  return parts.join(" ");
}

const BLOCKS = [
  [3, (r) => `<p>${inline(r, 4, 15)}.</p>`],
  [1, (r) => heading(r)],
  [1, (r) => list(r)],
  [0.5, (r) => table(r)],
  [0.5, (r) => codeBlock(r)],
  [0.5, (r) => image(r)],
  [0.25, (r) => iframe(r)],
  [0.25, () => "<p>&nbsp;</p>"],
];
const TOTAL = BLOCKS.reduce((sum, [weight]) => sum + weight, 0);

function heading(random) {
  const level = between(random, 2, 4);
  return `<h${level}>${words(random, 2, 5)}</h${level}>`;
}

function list(random) {
  const tag = random() < 0.6 ? "ul" : "ol";
  const items = [];
  for (let i = between(random, 2, 4); i > 0; i--) items.push(`<li>${inline(random, 2, 6)}</li>`);
  return `<${tag}>\n${items.join("\n")}\n</${tag}>`;
}

function table(random) {
  const cols = between(random, 2, 3);
  const row = (cell) => `<tr>${Array.from({ length: cols }, cell).join("")}</tr>`;
  const rows = [row(() => `<th>${words(random, 1, 2)}</th>`)];
  for (let i = between(random, 1, 3); i > 0; i--) rows.push(row(() => `<td>${words(random, 1, 3)}</td>`));
  return `<table>\n<tbody>\n${rows.join("\n")}\n</tbody>\n</table>`;
}

function codeBlock(random) {
  const lines = [];
  for (let i = between(random, 2, 5); i > 0; i--) {
    lines.push(
      `  const ${pick(random, WORDS)} = ${pick(random, WORDS)}(${between(random, 0, 99)}) &amp;&amp; x &lt; 3;`,
    );
  }
  return `<pre><code class="language-js">function ${pick(random, WORDS)}() {\n${lines.join("\n")}\n}\n</code></pre>`;
}

function image(random) {
  const name = `${pick(random, WORDS)}-${between(random, 1, 999)}`;
  return (
    `<figure class="image"><img src="https://cdn.example.com/uploads/${name}.png" alt="${words(random, 2, 4)}" ` +
    `width="${between(random, 300, 900)}" height="${between(random, 200, 600)}"><figcaption>${words(random, 2, 6)}</figcaption></figure>`
  );
}

function iframe(random) {
  const id = Math.floor(random() * 36 ** 8).toString(36);
  return (
    `<p><iframe src="https://www.youtube.com/embed/${id}" width="560" height="315" ` +
    'frameborder="0" allow="autoplay; encrypted-media" allowfullscreen="allowfullscreen"></iframe></p>'
  );
}

function block(random) {
  let roll = random() * TOTAL;
  for (const [weight, make] of BLOCKS) {
    roll -= weight;
    if (roll < 0) return make(random);
  }
  return BLOCKS[0][1](random);
}

/** One chapter: a heading and a few blocks. */
export function editorChapter(random) {
  const blocks = [`<h2>${words(random, 2, 5)}</h2>`];
  for (let i = between(random, 3, 6); i > 0; i--) blocks.push(block(random));
  return `${blocks.join("\n")}\n`;
}

/** A chapter of at least `bytes` bytes of the same blocks. */
export function largeEditorChapter(random, bytes) {
  const blocks = [];
  let size = 0;
  while (size < bytes) {
    const next = block(random);
    blocks.push(next);
    size += Buffer.byteLength(next) + 1;
  }
  return `${blocks.join("\n")}\n`;
}
