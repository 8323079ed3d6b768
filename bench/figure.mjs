// One printed figure of a benchmark beside its bound, marked ok or OVER (FAILED when the run
// behind it failed).

export const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;

/** Print `label: value   bound ... (note)   ok|OVER   extra`. */
export function figure(
  label,
  value,
  bound,
  { format = seconds, note = "", extra = "", failed = false } = {},
) {
  const verdict = failed ? "FAILED" : value <= bound ? "ok" : "OVER";
  const boundText = `bound ${format(bound)}${note ? ` (${note})` : ""}`;
  console.log(
    `  ${`${label}:`.padEnd(50)} ${format(value).padStart(8)}   ${boundText.padEnd(46)} ${verdict}${extra ? `   ${extra}` : ""}`,
  );
}
