/**
 * A count with its noun, singular or plural as the count wants: `counted(1, "page")` is
 * "1 page", `counted(3, "page")` "3 pages". Irregular plurals are given.
 */
export function counted(n: number, singular: string, plural = `${singular}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? singular : plural}`;
}
