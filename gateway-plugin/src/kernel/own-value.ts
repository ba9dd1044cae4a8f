/**
 * `obj[key]` for a key that may come from a client: the value of `obj`'s own property `key`, else
 * undefined. A plain object's `__proto__`, `constructor` or `toString` is Object.prototype's, not
 * data; reading it hands a function or an object to code that expects a string (issue 36). Tables
 * built for lookups by a request's names are Maps; this is for objects that come as they are
 * (session metadata, context variables).
 */
export function ownValue<V>(obj: Readonly<Record<string, V>> | undefined, key: string): V | undefined {
  return obj !== undefined && Object.hasOwn(obj, key) ? obj[key] : undefined;
}
