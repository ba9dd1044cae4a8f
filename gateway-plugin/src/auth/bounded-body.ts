/** Reading an outbound call's answer (a JWKS, an identity provider's token) whole, but bounded. */

/** The largest answer read: a key set or a token response is a few kB. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * The body as one buffer, or undefined (and the body destroyed) once it passes `max` bytes, so a
 * hostile or broken server cannot make the gateway hold an unbounded answer.
 */
export async function readBounded(body: AsyncIterable<unknown> & { destroy(): unknown }, max = MAX_ANSWER_BYTES): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of body) {
    size += (c as Buffer).length;
    if (size > max) {
      body.destroy();
      return undefined;
    }
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks);
}
