import { styleText } from "node:util";
import type { CliIO } from "./io.js";

type Style = Parameters<typeof styleText>[0];

/** Human output on stderr (colour only on a TTY), machine output on stdout. */
export class Output {
  readonly color: boolean;

  constructor(
    private readonly io: CliIO,
    private readonly quiet = false,
  ) {
    this.color = Boolean(io.stderr.isTTY) && io.env.NO_COLOR === undefined && io.env.TERM !== "dumb";
  }

  /** Paint text when stderr is a colour terminal. */
  paint(style: Style, text: string): string {
    return this.color ? styleText(style, text) : text;
  }

  /** A progress or status line for people; dropped with --quiet. */
  info(line: string): void {
    if (!this.quiet) this.io.stderr.write(`${line}\n`);
  }

  /** A warning; shown even with --quiet. */
  warn(line: string): void {
    this.io.stderr.write(`${this.paint("yellow", "warning:")} ${line}\n`);
  }

  /** The command's result on stdout (what a script reads). */
  result(text: string): void {
    this.io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  }

  /** Result lines on stdout, in one write (a pull of 50,000 chapters prints as many lines). */
  results(lines: readonly string[]): void {
    if (lines.length > 0) this.io.stdout.write(`${lines.join("\n")}\n`);
  }

  /** One JSON document on stdout: the whole of what --json prints there. */
  json(value: unknown): void {
    this.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }
}
