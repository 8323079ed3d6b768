/** "chapter 12", or "new chapter" for a record the site has not given an id yet. */
export function recordName(kind: string, id: number | undefined): string {
  return id === undefined ? `new ${kind}` : `${kind} ${id}`;
}
