/**
 * Test helpers for the io family (the `*.test.ts` files only): @svc/engine's component test kit
 * with this family's shorthands, and a seeded random generator.
 */
import { type ComponentContext, type Input, type Output } from '@svc/engine';
import { buildComponent, testContext as engineTestContext, type TestContext } from '@svc/engine/testing';

export { withDefaults, lintValue as lint, type TestContext } from '@svc/engine/testing';

/** A context for a component under test. */
export function testContext(type = 'test', path = `root.test.${type}`): TestContext {
  return engineTestContext({ type, path });
}

/** Builds a registered input from a config (defaults applied) through its factory. */
export function buildInput(name: string, config: unknown, ctx: ComponentContext = testContext(name)): Promise<Input> {
  return buildComponent<Input>('input', name, config, ctx);
}

/** Builds a registered output from a config (defaults applied) through its factory. */
export function buildOutput(name: string, config: unknown, ctx: ComponentContext = testContext(name)): Promise<Output> {
  return buildComponent<Output>('output', name, config, ctx);
}

/** A deterministic PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
