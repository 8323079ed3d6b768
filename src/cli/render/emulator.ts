/** What `coursesync emulator` tells a person once it serves. */
import type { EmulatorOptions, RunningEmulator } from "../../emulator/server.js";

/** The emulator's account when no --email or --password is given. */
export const DEFAULT_EMAIL = "demo@example.com";
export const DEFAULT_PASSWORD = "coursesync";

/** The lines on stderr after the base URL: what is served, how to log in, how to stop. */
export function emulatorBanner(emulator: RunningEmulator, options: EmulatorOptions): string {
  const { courses, chapters } = emulator.state.dump();
  const origin = new URL(emulator.baseUrl).origin;
  const password = options.password === undefined ? DEFAULT_PASSWORD : "the password given with --password";
  return [
    options.seedDir === null
      ? "Serving an empty site."
      : `Serving ${courses.length} course(s) and ${chapters.length} chapter(s) seeded from ${options.seedDir}.`,
    `Log in as ${options.email ?? DEFAULT_EMAIL} with ${password} (login URL ${emulator.loginUrl}).`,
    ...(options.admin ? [`Control routes are on under ${origin}/__admin/.`] : []),
    ...eventLines(options),
    `Try it: coursesync init demo --url ${emulator.baseUrl}`,
    "Press Ctrl-C to stop (it stops too when the process that started it ends).",
    "",
  ].join("\n");
}

/** What the banner says of events when they are not the default (all kept). */
function eventLines(options: EmulatorOptions): string[] {
  if (options.events === false) return ["No events: GET /events answers 404."];
  if (options.eventsKept !== undefined) return [`Events: only the newest ${options.eventsKept} are kept.`];
  return [];
}
