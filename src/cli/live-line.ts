/** The stream a live line is drawn on: a terminal's stderr. */
export interface LineStream {
  write(text: string): unknown;
  columns?: number;
}

/** Erase the line the cursor is on and go back to its start. */
const ERASE = "\r\x1b[K";

/** Redraws at most this often; the first and the last state are always drawn. */
const REDRAW_MS = 100;

/**
 * One line of a terminal that shows where a run stands and is redrawn in place (carriage
 * return, erase the line; no cursor hidden, so a killed run leaves the cursor visible). Other
 * output goes above it (`above`); `stop` erases it, leaving the cursor at the start of an empty
 * line below everything printed, where the summary goes.
 */
export class LiveLine {
  private text = "";
  private drawnAt: number | undefined;
  private stopped = false;

  constructor(
    private readonly stream: LineStream,
    private readonly now: () => number,
  ) {}

  /** Show `text` (cut to the terminal's width: a wrapped line could not be erased). */
  show(text: string, force = false): void {
    if (this.stopped) return;
    this.text = text.slice(0, Math.max(20, (this.stream.columns ?? 80) - 1));
    const at = this.now();
    if (!force && this.drawnAt !== undefined && at - this.drawnAt < REDRAW_MS) return;
    this.drawnAt = at;
    this.stream.write(`${ERASE}${this.text}`);
  }

  /** Print lines through `print` above the live line, which is then drawn again below them. */
  above(print: () => void): void {
    if (this.stopped || this.drawnAt === undefined) {
      print();
      return;
    }
    this.stream.write(ERASE);
    print();
    this.stream.write(this.text);
  }

  /** Erase the line for good: what is printed next starts at the left of that empty line. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.drawnAt !== undefined) this.stream.write(ERASE);
  }
}
