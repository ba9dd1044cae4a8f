/**
 * undici loaded on the first store call, not when the plugin loads: most gateways reference no
 * store, and the engine's start should not pay for an HTTP client it never uses.
 */
import type * as Undici from 'undici';

let loading: Promise<typeof Undici> | undefined;

export function undici(): Promise<typeof Undici> {
  loading ??= import('undici');
  return loading;
}
