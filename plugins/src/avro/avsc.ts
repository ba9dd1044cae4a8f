/**
 * avsc loads on first use (a schema compiled, or checked by lint), not with the plugin package: it
 * costs ~15 ms of every engine start and every worker thread's, avro or not. It is CommonJS, so a
 * synchronous require serves lint's synchronous checks (kafka/kafkajs.ts does the same for kafkajs,
 * asynchronously, as its factories can wait).
 */
import { createRequire } from 'node:module';
import type Avsc from 'avsc';

type AvscModule = typeof Avsc;
let avscModule: AvscModule | undefined;

/** avsc, loaded now if it was not yet. */
export function avsc(): AvscModule {
  return (avscModule ??= createRequire(import.meta.url)('avsc') as AvscModule);
}
