import { spawn } from "node:child_process";

/**
 * Whether a browser can be opened for the person running the command: stdout is a terminal,
 * no CI runs it, and (off macOS and Windows) a display is there.
 */
export function canOpenBrowser(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
  stdoutIsTTY: boolean,
): boolean {
  if (!stdoutIsTTY || env.CI !== undefined || env.SSH_CONNECTION !== undefined) return false;
  if (platform === "darwin" || platform === "win32") return true;
  return Boolean(env.DISPLAY || env.WAYLAND_DISPLAY);
}

/** Open a URL in the default browser, leaving it running on its own; a failure is ignored. */
export function openInBrowser(url: string): void {
  const [command, args] =
    process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", '""', url]]
        : ["xdg-open", [url]];
  try {
    const child = spawn(command, args, { detached: true, stdio: "ignore" });
    child.on("error", () => {});
    child.unref();
  } catch {
    // No opener on this machine: the URL is printed for the person to open.
  }
}
