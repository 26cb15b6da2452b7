/** One path segment from an id given by a user: never lets it add segments or a query. */
export function segment(value: string | number): string {
  return encodeURIComponent(String(value))
}
