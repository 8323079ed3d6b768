/** One example of a command's `--help`: what it does, and the command line that does it. */
export interface Example {
  /** What the line does, in a few words; printed as a comment above it. */
  does: string;
  /** The whole command line, starting with `coursesync`. */
  line: string;
}

/** The API root the examples use. */
export const EXAMPLE_URL = "https://academy.example.com/api/v1";

/** The "Examples:" block that ends a command's help: a comment line, then the command line. */
export function examplesText(examples: readonly Example[]): string {
  return `\nExamples:\n${examples.map((example) => `  # ${example.does}\n  ${example.line}`).join("\n")}`;
}
