import type { ComponentConfig } from '../config/component-config.js';

/**
 * A broker's children, the whole list repeated `copies` times. Copies after the first get their
 * own path (`...#1`), so their status and metrics stay apart.
 */
export function withCopies(children: ComponentConfig[], copies: number): ComponentConfig[] {
  const out: ComponentConfig[] = [];
  for (let copy = 0; copy < copies; copy++) {
    for (const c of children) out.push(copy === 0 ? c : { ...c, path: `${c.path}#${copy}` });
  }
  return out;
}
