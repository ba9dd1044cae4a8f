/**
 * undici and ws load when a component that uses them is built, not when the plugin package is
 * imported: together they cost ~300 ms of start-up that a stdin → stdout stream has no use for.
 * Factories `await loadHttpDeps()` before constructing; the code then reads them synchronously.
 */
import type * as Undici from 'undici';
import type * as Ws from 'ws';

let undiciMod: typeof Undici | undefined;
let wsMod: typeof Ws | undefined;

export async function loadUndici(): Promise<typeof Undici> {
  return (undiciMod ??= await import('undici'));
}

export async function loadWs(): Promise<typeof Ws> {
  return (wsMod ??= await import('ws'));
}

/** undici, once a factory loaded it. */
export function undici(): typeof Undici {
  if (!undiciMod) throw new Error('undici is not loaded: the component factory must await loadUndici() first');
  return undiciMod;
}

/** ws, once a factory loaded it. */
export function ws(): typeof Ws {
  if (!wsMod) throw new Error('ws is not loaded: the component factory must await loadWs() first');
  return wsMod;
}
