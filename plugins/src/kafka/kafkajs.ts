/**
 * kafkajs loads when a kafka component is built, not when the plugin package is imported: its
 * 143 modules cost ~30 ms of every start-up, kafka or not. The factories `await loadKafkajs()`
 * before constructing; the code then reads it synchronously with `kafkajs()`.
 */
import type * as Kafkajs from 'kafkajs';

type KafkajsModule = typeof Kafkajs;

let mod: KafkajsModule | undefined;

export async function loadKafkajs(): Promise<KafkajsModule> {
  return (mod ??= (await import('kafkajs')).default as unknown as KafkajsModule);
}

/** kafkajs, once a factory loaded it. */
export function kafkajs(): KafkajsModule {
  if (!mod) throw new Error('kafkajs is not loaded: the component factory must await loadKafkajs() first');
  return mod;
}
