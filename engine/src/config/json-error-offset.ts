/**
 * Where JSON text stops being JSON: V8's JSON.parse names a position for some errors only
 * ("Unexpected token 'x', ... is not valid JSON" has none), and a user needs a line and column.
 * A small scanner of the JSON grammar, run only after JSON.parse failed; it does not build values.
 */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const fail = (): never => {
    throw new Stop(i);
  };
  const literal = (word: string): void => {
    if (text.startsWith(word, i)) i += word.length;
    else fail();
  };
  const string = (): void => {
    i++; // the opening quote
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        i++;
        return;
      }
      if (c < 32) fail();
      if (c === 92) {
        const e = text[i + 1];
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail();
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else {
          i++;
          fail();
        }
      } else i++;
    }
    fail();
  };
  const number = (): void => {
    const m = /-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
    m.lastIndex = i;
    if (!m.exec(text)) fail();
    i = m.lastIndex;
  };
  // Containers are walked with an explicit stack: a deeply nested text cannot overflow ours.
  const stack: ('{' | '[')[] = [];
  /** Reads one value; an opened container is pushed with its first element's value read. */
  const value = (): void => {
    for (;;) {
      ws();
      const c = text[i];
      if (c === '{' || c === '[') {
        i++;
        ws();
        if (text[i] === (c === '{' ? '}' : ']')) {
          i++;
          return;
        }
        stack.push(c);
        if (c === '{') key();
        continue;
      }
      if (c === '"') string();
      else if (c === 't') literal('true');
      else if (c === 'f') literal('false');
      else if (c === 'n') literal('null');
      else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) number();
      else fail();
      return;
    }
  };
  const key = (): void => {
    ws();
    if (text[i] !== '"') fail();
    string();
    ws();
    if (text[i] !== ':') fail();
    i++;
  };
  try {
    value();
    for (;;) {
      ws();
      const top = stack[stack.length - 1];
      if (top === undefined) break;
      // A value just ended inside a container: a comma and the next, or the container's end.
      if (text[i] === ',') {
        i++;
        if (top === '{') key();
        value();
      } else if (text[i] === (top === '{' ? '}' : ']')) {
        stack.pop();
        i++;
      } else fail();
    }
    ws();
    return i < text.length ? i : text.length;
  } catch (err) {
    if (err instanceof Stop) return err.offset;
    throw err;
  }
}

class Stop {
  constructor(readonly offset: number) {}
}
