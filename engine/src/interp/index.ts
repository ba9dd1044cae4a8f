/**
 * The mapping language: a compatible subset of Benthos' Bloblang, compiled once to closures.
 *
 * - {@link compileMapping}: a mapping (`root.a = this.b`, `meta k = ...`, `let x = ...`, ...).
 * - {@link compileQuery}: one expression (batching and switch `check`).
 * - {@link compileInterpolation}: config strings with `${! expr }` segments.
 */
export { InterpError } from './errors.js';
export { compileMapping, compileQuery } from './mapping.js';
export type { Mapping, MappingResult, Query, ExecContext } from './mapping.js';
export { mappingTargets, type MappingTargets } from './targets.js';
export { compileInterpolation, hasInterpolation } from './interpolation.js';
export { containedPath } from './contained-path.js';
export type { Interpolation } from './interpolation.js';
export { languageNames } from './registry.js';
