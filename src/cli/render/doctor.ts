import { redactUrl } from "../../api/login-url.js";

/** How one check of `coursesync doctor` went; `skip`: not run because one it needs failed. */
export type CheckStatus = "ok" | "warn" | "fail" | "skip";

/** One line of `coursesync doctor`: what was checked, how it went, and what to do. */
export interface DoctorCheck {
  check: string;
  status: CheckStatus;
  message: string;
  hint?: string;
}

const NAME_WIDTH = Math.max(
  ..."config snapshot lock .gitignore url credentials account".split(" ").map((n) => n.length),
);

/** One line a check (`ok    url          ...`), with what to do indented below a warn or fail. */
export function doctorText(checks: readonly DoctorCheck[]): string {
  return checks
    .map((c) => {
      const line = `${c.status.padEnd(5)} ${c.check.padEnd(NAME_WIDTH)}  ${redactUrl(c.message)}`;
      return c.hint ? `${line}\n${" ".repeat(6 + NAME_WIDTH + 2)}${redactUrl(c.hint)}` : line;
    })
    .join("\n");
}

/** The JSON document of `doctor --json`. */
export function doctorJson(checks: readonly DoctorCheck[]): object {
  return {
    ok: checks.every((c) => c.status === "ok" || c.status === "skip"),
    checks: checks.map((c) => ({
      check: c.check,
      status: c.status,
      message: redactUrl(c.message),
      ...(c.hint ? { hint: redactUrl(c.hint) } : {}),
    })),
  };
}
