// Pull the emulator's sample site into a new tree with the library, then ask its status.
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { CoursesyncError, pull, status } from "coursesync";
import { startEmulator } from "coursesync/emulator";

const emulator = await startEmulator({ port: 0 }); // the sample site, on a free port
const dir = path.join(await mkdtemp(path.join(tmpdir(), "school-")), "school");
await mkdir(dir);
const config = `site: production\nsites:\n  production:\n    url: ${emulator.url}\n`;
await writeFile(path.join(dir, "coursesync.yaml"), config);
try {
  const { email, password } = emulator;
  const pulled = await pull({ dir, email, password });
  console.log(`pulled ${pulled.remote.courses} courses, wrote ${pulled.files_written} files`);
  const { clean } = await status({ dir });
  console.log(clean ? "nothing to push" : "edits to push");
} catch (error) {
  if (!(error instanceof CoursesyncError)) throw error;
  console.error(`${error.message}\n${error.hint ?? ""}`);
  process.exitCode = error.exitCode;
} finally {
  await emulator.close();
}
