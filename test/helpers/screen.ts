/** What a terminal shows after it was sent `text`: its lines, and where the cursor is. */
export interface Screen {
  /** Every line, trailing blanks cut; the cursor's line included, even when empty. */
  lines: string[];
  cursor: { row: number; column: number };
}

/**
 * Play what was written to a terminal as the terminal would: printable text, line feed, carriage
 * return, erase in line (`ESC[K`), erase below (`ESC[J`), cursor up (`ESC[nA`); colours dropped.
 * Any other escape sequence fails the test: the output would do something not checked here.
 */
export function playScreen(text: string): Screen {
  const rows: string[][] = [[]];
  let row = 0;
  let column = 0;
  const line = () => (rows[row] ??= []);
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "\n") {
      row++;
      column = 0;
      line();
    } else if (ch === "\r") {
      column = 0;
    } else if (ch === "\x1b") {
      const match = /^\x1b\[([0-9;]*)([A-Za-z])/.exec(text.slice(i));
      if (!match) throw new Error(`unknown escape at ${i}: ${JSON.stringify(text.slice(i, i + 8))}`);
      const [whole, arg, op] = match as unknown as [string, string, string];
      i += whole.length - 1;
      if (op === "m") continue;
      if (op === "K") line().length = column;
      else if (op === "J") {
        line().length = column;
        rows.length = row + 1;
      } else if (op === "A") row = Math.max(0, row - Number(arg || 1));
      else throw new Error(`unexpected escape sequence ${JSON.stringify(whole)}`);
    } else {
      const cells = line();
      while (cells.length < column) cells.push(" ");
      cells[column++] = ch;
    }
  }
  return { lines: rows.map((cells) => (cells ?? []).join("").trimEnd()), cursor: { row, column } };
}

/** The lines a screen shows with text on them, last one last. */
export function visibleLines(screen: Screen): string[] {
  return screen.lines.filter((line) => line !== "");
}
