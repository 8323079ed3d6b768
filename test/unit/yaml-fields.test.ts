import { describe, expect, it } from "vitest";
import { Document } from "yaml";
import { stringifyYamlFields } from "../../src/tree/yaml-text.js";

/** What the YAML library writes for these fields (the form every file has always had). */
const library = (fields: ReadonlyArray<readonly [string, unknown]>) =>
  new Document(Object.fromEntries(fields), { schema: "core" }).toString({ lineWidth: 0, minContentWidth: 0 });

/** A small deterministic generator, so that a failure names a case that comes back. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const CHARACTERS = "aZe E0 9,.()'!?&/+-:#\"*[]{}|>%@`~\\\t\n\u00e9\u2028";
/** Characters of one-line texts: no line break, but the escapes and indicators around them. */
const ONE_LINE =
  "aZe E0 9.+-:#'\"~%@`!&*|>?,[]{}\\\t\r\u0000\u0007\u001b\u007f\u0085\u00a0\u2028\ud800xo\udc00\u{1F600}";
const WORDS = [
  "true",
  "True",
  "TRUE",
  "tRUE",
  "false",
  "False",
  "null",
  "Null",
  "NULL",
  "nULL",
  "yes",
  "No",
  "on",
];
const WORDS_MORE = [
  "inf",
  ".inf",
  "nan",
  ".NaN",
  "e5",
  "0x1F",
  "0o7",
  "1e3",
  "-",
  "?",
  "a: b",
  "a #b",
  "a#b",
  "",
  "~",
  "0o17",
  "0o8",
  "0x1g",
  "+12",
  "-7",
  ".5",
  "1.",
  "-.inf",
  "+.Inf",
  ".NAN",
  "1e",
  "---",
  "--- a",
  "---a",
  "...",
  "...a",
  "%a",
  "a:",
  "a:b",
  "a\tb",
  "\ta",
  "a\t",
  "a\t#b",
  "- a",
  "? a",
  "Course 1: Basics",
  "About course 1",
  "2026-11-28T22:00:00.000Z",
  'It\'s "quoted"',
  'say "hi"',
  "a\u0000b\u0007\u000b\u001b\u0085\u00a0\u2028\u2029\u0001\u007f",
  "a\ud800b",
  "\udc00",
  "\u{1F600} smile",
  "back\\slash \\u0041",
];

describe("YAML fields as written to course and chapter files", () => {
  it("are the YAML library's bytes for every kind of value, written plainly or not", () => {
    const random = generator(35);
    const values: unknown[] = [
      ...WORDS,
      ...WORDS_MORE,
      null,
      true,
      false,
      0,
      -0,
      7,
      -12,
      2 ** 53,
      1.5,
      Number.NaN,
      undefined,
      ["a"],
      { literal: 1 },
      "Chapter 1 of course 2",
      "It's (nearly) done!",
      "a b ",
      " a",
    ];
    for (let i = 0; i < 3000; i++) {
      let text = "";
      const length = 1 + Math.floor(random() * 12);
      for (let j = 0; j < length; j++) text += CHARACTERS[Math.floor(random() * CHARACTERS.length)];
      values.push(text);
    }
    for (let i = 0; i < 3000; i++) {
      const characters = [...ONE_LINE];
      let text = "";
      const length = 1 + Math.floor(random() * 10);
      for (let j = 0; j < length; j++) text += characters[Math.floor(random() * characters.length)];
      values.push(text);
    }
    for (const value of values) {
      for (const fields of [
        [["title", value]],
        [
          ["id", 3],
          ["title", value],
          ["ordinal", 2],
        ],
      ] as Array<Array<[string, unknown]>>) {
        expect(stringifyYamlFields(fields), JSON.stringify(value)).toBe(library(fields));
      }
    }
  });

  it("are the library's bytes for keys it would write otherwise, and for a key given twice", () => {
    for (const fields of [
      [["Title", "a"]],
      [["a-b", "a"]],
      [["__proto__", "a"]],
      [
        ["title", "a"],
        ["title", "b"],
      ],
      [],
    ] as Array<Array<[string, unknown]>>) {
      expect(stringifyYamlFields(fields)).toBe(library(fields));
    }
  });
});
