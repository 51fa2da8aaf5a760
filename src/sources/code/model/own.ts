/** `record[key]` for the record's own keys only: source names such as `constructor` or `toString` must not hit Object.prototype. */
export function own<V>(record: Readonly<Record<string, V>> | undefined, key: string): V | undefined {
  return record && Object.hasOwn(record, key) ? record[key] : undefined;
}
