import { spawnSync } from "node:child_process";

/** A coursesync.yaml with two sites, production (the default) and staging. */
export const TWO_SITES = `site: production
sites:
  production:
    url: https://academy.example.com/api/v1
  staging:
    url: https://staging.academy.example.com/api/v1
`;

/** Whether a program (a shell) is on PATH. */
export function installed(program: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${program}`]).status === 0;
}
