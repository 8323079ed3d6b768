// node bench/markdown.mjs (after npm run build): the figures of the Markdown body issue.
// - the share of chapters stored as editable Markdown, for the CommonMark spec corpus and the
//   rich-text-editor corpus in test/fixtures/editor-html (and how many top-level blocks went raw);
// - throughput of the whole pull-side step (parse, convert, render back, gate) on 10 KB chapters,
//   in chapters per second on one core (this process is single-threaded; V8's own helper threads
//   add about a tenth of a core, which `taskset -c 0 node bench/markdown.mjs` takes away);
// - the time for one 1 MB chapter;
// - a first pull's conversion of 2,000 chapters, on worker threads and on one thread (on this
//   2-core machine two workers run each about 1.3 times slower than one alone);
// - what each of the gate's shortcuts (the fast HTML parser, the token shortcut) saves.
import { parseFragment } from "parse5";
import { fastParseFragment } from "../dist/tree/markdown/fast-html.js";
import { parseHtml } from "../dist/tree/markdown/gate.js";
import { htmlToBody, markdownToHtml } from "../dist/tree/markdown/index.js";
import { convertMany } from "../dist/tree/markdown/pool.js";
import { blockHtml, topBlocks } from "../dist/tree/markdown/to-markdown.js";
import { editorCorpus, specCorpus } from "./corpora.mjs";

function percent(part, whole) {
  return `${((100 * part) / whole).toFixed(1)}%`;
}

// Share stored as Markdown, and of the top-level blocks of those chapters, how many are kept as
// HTML blocks (their whole HTML, not Markdown) inside the Markdown.
function share(name, corpus) {
  let markdown = 0;
  let blocks = 0;
  let rawBlocks = 0;
  for (const html of corpus) {
    const { body, format } = htmlToBody(html);
    if (format !== "markdown") continue;
    markdown++;
    for (const block of topBlocks(parseHtml(html).childNodes)) {
      blocks++;
      const raw = blockHtml(block);
      if (raw !== undefined && `\n\n${body}\n\n`.includes(`\n\n${raw}\n\n`)) rawBlocks++;
    }
  }
  console.log(
    `${name}: ${markdown}/${corpus.length} chapters stored as Markdown (${percent(markdown, corpus.length)}); ` +
      `${rawBlocks}/${blocks} of their top-level blocks kept as HTML blocks (${percent(rawBlocks, blocks)})`,
  );
}

/** Chapters of at least `size` characters, made by joining corpus fragments from `offset` on. */
function chapters(corpus, size, count) {
  const out = [];
  for (let c = 0; c < count; c++) {
    let html = "";
    for (let i = c * 7; html.length < size; i++) html += `${corpus[i % corpus.length]}\n`;
    out.push(html);
  }
  return out;
}

// A clean 10 KB chapter: the kind of HTML a site's own Markdown or a tidy editor produces.
function cleanChapter(size) {
  let html = "";
  for (let i = 0; html.length < size; i++) {
    html +=
      `<h2>Section ${i}: the basics</h2>\n` +
      `<p>Layout in CSS starts from <strong>one idea</strong>: every element generates a <em>box</em>. ` +
      `See <a href="https://example.com/docs/${i}">the docs</a> and <code>box-sizing</code>.</p>\n` +
      "<ul>\n<li>Content &mdash; the text itself</li>\n<li>Padding, inside the border</li>\n</ul>\n" +
      `<pre><code class="language-css">.box {\n  padding: 1rem;\n}\n</code></pre>\n` +
      "<blockquote>\n<p>Measure, don't guess.</p>\n</blockquote>\n" +
      "<table>\n<thead>\n<tr>\n<th>Property</th>\n<th>Value</th>\n</tr>\n</thead>\n" +
      "<tbody>\n<tr>\n<td>margin</td>\n<td>auto</td>\n</tr>\n</tbody>\n</table>\n";
  }
  return html;
}

// Rounds of a second and a half each: the median, and the best (this figure swings with whatever
// else the machine runs).
function throughput(name, inputs) {
  for (let i = 0; i < 30; i++) htmlToBody(inputs[i % inputs.length]);
  const rates = [];
  let markdown = 0;
  let count = 0;
  for (let round = 0; round < 5; round++) {
    let done = 0;
    const started = performance.now();
    while (performance.now() - started < 1500) {
      if (htmlToBody(inputs[count % inputs.length]).format === "markdown") markdown++;
      count++;
      done++;
    }
    rates.push((1000 * done) / (performance.now() - started));
  }
  rates.sort((a, b) => a - b);
  const kb = Math.round(inputs.reduce((sum, html) => sum + html.length, 0) / inputs.length / 1024);
  console.log(
    `${name}: ${rates[2].toFixed(0)} chapters/s of ~${kb} KB (median of 5 rounds; best ${rates[4].toFixed(0)}, ` +
      `worst ${rates[0].toFixed(0)}; ${(1000 / rates[2]).toFixed(2)} ms each; ${percent(markdown, count)} stored as Markdown)`,
  );
}

// The gate's HTML parse alone: parse5, and the fast path that builds the same tree for plainly
// well-formed HTML (both on the same chapters, and on the HTML their Markdown renders to).
function parseTimes(name, inputs) {
  const rendered = inputs.map((html) => markdownToHtml(htmlToBody(html).body));
  const all = [...inputs, ...rendered];
  const accepted = all.filter((html) => fastParseFragment(html) !== undefined).length;
  const time = (parse) => {
    const rates = [];
    for (let round = 0; round < 5; round++) {
      let done = 0;
      const started = performance.now();
      while (performance.now() - started < 500) parse(all[done++ % all.length]);
      rates.push((performance.now() - started) / done);
    }
    return rates.sort((a, b) => a - b)[2];
  };
  const slow = time(parseFragment);
  const fast = time((html) => fastParseFragment(html) ?? parseFragment(html));
  console.log(
    `${name}: parse5 ${slow.toFixed(2)} ms, with the fast path ${fast.toFixed(2)} ms ` +
      `(${(slow / fast).toFixed(1)}x; it read ${accepted}/${all.length} of them itself)`,
  );
}

// The gate's two shortcuts (src/tree/markdown/gate.ts), each turned off in turn on the same
// chapters: the pull step's time per chapter, what each saves, and proof the bodies are the same.
function shortcutSavings(name, inputs) {
  const settings = {
    both: { fastHtml: true, rendered: true },
    noFastHtml: { fastHtml: false, rendered: true },
    noRendered: { fastHtml: true, rendered: false },
    neither: { fastHtml: false, rendered: false },
  };
  const expected = inputs.map((html) => htmlToBody(html));
  const same = Object.values(settings).every((shortcuts) =>
    inputs.every((html, i) => {
      const { body, format } = htmlToBody(html, shortcuts);
      return body === expected[i].body && format === expected[i].format;
    }),
  );
  // Short rounds taking turns between the settings, and the best of each: whatever else the
  // machine runs only ever slows a round down.
  const times = Object.fromEntries(Object.keys(settings).map((key) => [key, []]));
  for (let round = 0; round < 9; round++) {
    for (const [key, shortcuts] of Object.entries(settings)) {
      let done = 0;
      const started = performance.now();
      while (performance.now() - started < 200) htmlToBody(inputs[done++ % inputs.length], shortcuts);
      times[key].push((performance.now() - started) / done);
    }
  }
  const ms = Object.fromEntries(Object.entries(times).map(([key, each]) => [key, Math.min(...each)]));
  const saves = (without) => `${(without - ms.both).toFixed(2)} ms (${percent(without - ms.both, without)})`;
  console.log(
    `${name}: ${ms.both.toFixed(2)} ms each with both shortcuts, ${ms.neither.toFixed(2)} ms with neither; ` +
      `the fast HTML parser saves ${saves(ms.noFastHtml)}, the token shortcut (rendered.ts) ${saves(ms.noRendered)} ` +
      `(best of 9 rounds; bodies ${same ? "identical" : "DIFFERENT"} either way)`,
  );
}

function oneMegabyte(name, html) {
  const times = [];
  let format = "";
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    format = htmlToBody(html).format;
    times.push(performance.now() - started);
  }
  console.log(
    `${name}: ${(html.length / 1024 / 1024).toFixed(2)} MB chapter in ${Math.min(...times).toFixed(0)} ms ` +
      `(first run ${times[0].toFixed(0)} ms; stored as ${format})`,
  );
}

console.log(`Node ${process.version}, one core`);
share("CommonMark spec corpus", specCorpus);
share("Editor corpus", editorCorpus);
throughput("Pull step, clean 10 KB chapters", [cleanChapter(10 * 1024)]);
// Editor snippets joined into chapters: all of them (most such chapters hold one snippet that only
// HTML can say, so they take the slowest path: whole check, block checks, then HTML), and only
// the snippets that are Markdown on their own.
const markdownSnippets = editorCorpus.filter((html) => htmlToBody(html).format === "markdown");
throughput("Pull step, editor-mix 10 KB chapters", chapters(editorCorpus, 10 * 1024, 20));
throughput(
  "Pull step, editor-mix 10 KB chapters (Markdown-able snippets)",
  chapters(markdownSnippets, 10 * 1024, 20),
);
parseTimes(
  "HTML parse of a ~10 KB editor-mix chapter and of its rendered Markdown",
  chapters(markdownSnippets, 10 * 1024, 20),
);
shortcutSavings("Gate shortcuts, clean 10 KB chapters", [cleanChapter(10 * 1024)]);
shortcutSavings(
  "Gate shortcuts, editor-mix 10 KB chapters (Markdown-able snippets)",
  chapters(markdownSnippets, 10 * 1024, 20),
);
oneMegabyte("Pull step, clean", cleanChapter(1024 * 1024));
oneMegabyte("Pull step, editor mix", chapters(editorCorpus, 1024 * 1024, 1)[0]);
oneMegabyte("Pull step, editor mix (Markdown-able snippets)", chapters(markdownSnippets, 1024 * 1024, 1)[0]);
// Nesting deeper than the converter follows: every check must stay linear in the depth.
oneMegabyte("Pull step, 60,000 nested <div>s", `${"<div>".repeat(60000)}x${"</div>".repeat(60000)}`);

// A first pull of a large site converts on worker threads (src/tree/markdown/pool.ts).
{
  // The chapters that cost the most: editor-style ones that become Markdown, and clean ones.
  const many = [...chapters(markdownSnippets, 10 * 1024, 1000), ...Array(1000).fill(cleanChapter(10 * 1024))];
  let started = performance.now();
  await convertMany(many, htmlToBody, { threshold: 0 });
  const pooled = performance.now() - started;
  started = performance.now();
  many.map(htmlToBody);
  const single = performance.now() - started;
  console.log(
    `First-pull conversion of ${many.length} ~10 KB chapters: ${(pooled / 1000).toFixed(1)} s on worker threads ` +
      `(one per core, at most 4), ${(single / 1000).toFixed(1)} s on one thread`,
  );
}
