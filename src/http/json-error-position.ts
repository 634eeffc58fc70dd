// Pure: where JSON text first goes wrong (V8 names a position only for some mistakes), so a 400 can point at it.

const NUMBER = /-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const LITERAL = /true|false|null/y;
const SPACE = /[ \t\n\r]*/y;

/**
 * The offset of the first character that cannot continue valid JSON, `text.length` when the text ends too early, or
 * null when the text is valid JSON.
 */
export function jsonErrorOffset(text: string): number | null {
  let i = 0;
  const skip = (): void => {
    SPACE.lastIndex = i;
    SPACE.exec(text);
    i = SPACE.lastIndex;
  };
  const token = (re: RegExp): boolean => {
    re.lastIndex = i;
    if (!re.test(text)) return false;
    i = re.lastIndex;
    return true;
  };
  // An explicit stack instead of recursion: deep nesting must not overflow the call stack.
  const stack: ('{' | '[')[] = [];
  for (;;) {
    // Expect a value.
    skip();
    const c = text[i];
    if (c === '{' || c === '[') {
      stack.push(c);
      i++;
      skip();
      if (text[i] === (c === '{' ? '}' : ']')) {
        stack.pop();
        i++;
      } else if (c === '{') {
        if (!token(STRING)) return i;
        skip();
        if (text[i] !== ':') return i;
        i++;
        continue;
      } else {
        continue;
      }
    } else if (!(c === '"' ? token(STRING) : c === '-' || (c !== undefined && c >= '0' && c <= '9') ? token(NUMBER) : token(LITERAL))) {
      return c === '"' && !text.includes('"', i + 1) ? text.length : i;
    }
    // After a value: close containers or move to the next member.
    for (;;) {
      skip();
      const top = stack[stack.length - 1];
      if (top === undefined) return i === text.length ? null : i;
      const close = top === '{' ? '}' : ']';
      if (text[i] === close) {
        stack.pop();
        i++;
        continue;
      }
      if (text[i] !== ',') return i;
      i++;
      if (top === '{') {
        skip();
        if (!token(STRING)) return i;
        skip();
        if (text[i] !== ':') return i;
        i++;
      }
      break;
    }
  }
}
