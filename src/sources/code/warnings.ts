/** A step that failed on one declaration, file or pass: skipped, and said with where and why. */
export function skipWarning(at: string, what: string, err: unknown): string {
  const reason = err instanceof Error ? err.message : String(err);
  return `${at}: ${what} skipped: ${reason.slice(0, 200)}`;
}
