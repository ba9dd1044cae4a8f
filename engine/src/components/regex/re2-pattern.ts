/**
 * A config field holding an RE2 regular expression: checked at lint, so a bad pattern names its
 * place in the config, and RE2 so a pattern from a user can never backtrack catastrophically.
 */
import { RE2JS } from 're2js';
import { f, type Field } from '../../config/spec.js';
import { errorMessage } from '../../errors.js';

export function re2PatternField(): Field<string> {
  return f.string().validate((p) => {
    try {
      RE2JS.compile(p);
      return undefined;
    } catch (err) {
      return `invalid RE2 regex "${p}": ${errorMessage(err)}`;
    }
  });
}
