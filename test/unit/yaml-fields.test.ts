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
