import path from "node:path";
import { expect } from "vitest";
import { type CliEnv, cliEnv } from "./site.js";
import { runBin, startBinEmulator } from "./subprocess.js";
import { testdir } from "./testdir.js";

/** A chapter as the emulator's admin state holds it. */
export type DumpChapter = Record<string, unknown> & {
  id: number;
  course_id: number;
  title: string;
  ordinal: number;
  content: string;
};

interface Dump {
  courses: Array<Record<string, unknown>>;
  chapters: DumpChapter[];
  events: unknown[];
}

/**
 * The built emulator (`--admin`, pages of `pageSize`) holding the chapters `make` returns from its
 * sample site's first chapter and the sample contents, and a tree the built CLI made and pulled
 * from it. `stop` ends the emulator.
 */
export async function pulledBinSite(
  pageSize: number,
  make: (template: DumpChapter, samples: string[]) => DumpChapter[],
): Promise<{ tree: string; env: CliEnv; chapters: DumpChapter[]; stop: () => Promise<void> }> {
  const emulator = await startBinEmulator(["--admin", "--page-size", String(pageSize)]);
  try {
    const origin = new URL(emulator.url).origin;
    const dump = (await (await fetch(`${origin}/__admin/state`)).json()) as Dump;
    const chapters = make(
      dump.chapters[0]!,
      dump.chapters.map((c) => c.content),
    );
    const reset = await fetch(`${origin}/__admin/reset`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ ...dump, chapters, events: [] }),
    });
    expect(reset.status).toBe(200);

    const dir = await testdir();
    const env = cliEnv(dir);
    expect((await runBin(["init", "school", "--url", emulator.url], { cwd: dir, env })).code).toBe(0);
    const tree = path.join(dir, "school");
    const pulled = await runBin(["pull", "--json"], { cwd: tree, env });
    expect(pulled.code, pulled.stderr).toBe(0);
    return { tree, env, chapters, stop: () => emulator.stop() };
  } catch (error) {
    await emulator.stop();
    throw error;
  }
}
