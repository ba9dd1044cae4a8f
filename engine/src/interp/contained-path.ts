/**
 * The guard of an output path whose value is interpolated: message text (an `archive_filename`
 * of `../x`) must not move a write out of the folder the config names. The folder is the literal
 * text before the first interpolation, up to its last `/` (`./out/` of `./out/${! meta("f") }`;
 * the working directory when the path starts with an interpolation). Refused: a result that,
 * normalised, leaves that folder; a `..` segment made (even in part) by interpolated text; a
 * leading `/` made by interpolated text.
 */
import { posix } from 'node:path';
import { ErrorCode, SvcError } from '../errors.js';
import type { Message } from '../message/message.js';
import type { Interpolation } from './interpolation.js';
import type { ExecContext } from './state.js';

/** The path `path` yields for `msg`, or an SvcError (E_WRITE) saying why it is refused; `what` names the field in the error. */
export function containedPath(path: Interpolation, msg: Message, ctx: ExecContext, what: string): string {
  if (path.isStatic) return path.value(msg, ctx);
  const segments = path.segments(msg, ctx);
  let full = '';
  let folder: string | undefined;
  /** Offsets in `full` of the characters that came from interpolated text. */
  const fromMessage: boolean[] = [];
  for (const s of segments) {
    if (s.interpolated && folder === undefined) folder = full.slice(0, full.lastIndexOf('/') + 1);
    full += s.text;
    for (let i = 0; i < s.text.length; i++) fromMessage.push(s.interpolated);
  }
  const refuse = (why: string) => new SvcError(ErrorCode.Write, `${what}: the path "${full}" is refused: ${why}`);
  if (full.startsWith('/') && fromMessage[0]) throw refuse('its leading "/" comes from interpolated text');
  let at = 0;
  for (const part of full.split('/')) {
    if (part === '..' && (fromMessage[at] || fromMessage[at + 1])) throw refuse('a ".." segment comes from interpolated text');
    at += part.length + 1;
  }
  const base = posix.resolve(folder || '.');
  const rel = posix.relative(base, posix.resolve(full));
  if (rel === '' || rel === '..' || rel.startsWith('../') || posix.isAbsolute(rel)) throw refuse(`it is not inside "${folder || './'}"`);
  return full;
}
