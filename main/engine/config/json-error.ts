/**
 * Finds where JSON text first goes wrong, as line and column. JSON.parse's own messages differ between Node
 * versions (Node 20 gives no position for most errors), so this small strict scanner (RFC 8259) gives the CLI
 * one stable one-line message wherever it runs. Only called after JSON.parse has failed.
 */
export interface JsonSyntaxProblem {
  message: string;
  offset: number;
  line: number;
  column: number;
}

class Stop {
  constructor(
    readonly message: string,
    readonly offset: number,
  ) {}
}

const describeChar = (ch: string): string => {
  const code = ch.codePointAt(0)!;
  return code < 0x20 || code === 0x7f || code === 0xfeff ? `U+${code.toString(16).toUpperCase().padStart(4, '0')}` : `'${ch}'`;
};

export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

export function findJsonSyntaxError(text: string): JsonSyntaxProblem | undefined {
  let i = 0;
  const unexpected = (): never => {
    if (i >= text.length) throw new Stop('Unexpected end of input', i);
    throw new Stop(`Unexpected token ${describeChar(String.fromCodePoint(text.codePointAt(i)!))}`, i);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const digits = (): void => {
    if (!/[0-9]/.test(text[i] ?? '')) unexpected();
    while (/[0-9]/.test(text[i] ?? '')) i++;
  };
  const string = (): void => {
    const start = i;
    i++; // opening quote
    for (;;) {
      if (i >= text.length) throw new Stop('Unterminated string', start);
      const c = text[i]!;
      if (c === '"') {
        i++;
        return;
      }
      if (c.charCodeAt(0) < 0x20) throw new Stop('Bad control character in string', i);
      if (c === '\\') {
        i++;
        const e = text[i];
        if (e === 'u') {
          for (let k = 1; k <= 4; k++) {
            if (!/[0-9a-fA-F]/.test(text[i + k] ?? '')) {
              i += k;
              unexpected();
            }
          }
          i += 5;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) throw new Stop('Bad escape in string', i - 1);
      }
      i++;
    }
  };
  const number = (): void => {
    if (text[i] === '-') i++;
    if (text[i] === '0') i++;
    else digits();
    if (text[i] === '.') {
      i++;
      digits();
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      digits();
    }
  };
  const literal = (word: string): void => {
    for (const ch of word) {
      if (text[i] !== ch) unexpected();
      i++;
    }
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') unexpected();
        string();
        ws();
        if (text[i] !== ':') unexpected();
        i++;
        value();
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        unexpected();
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        unexpected();
      }
    }
    if (c === '"') return string();
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return number();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    unexpected();
  };

  try {
    value();
    ws();
    if (i < text.length) throw new Stop(`Unexpected ${describeChar(text[i]!)} after the end of the JSON value`, i);
    return undefined;
  } catch (err) {
    if (!(err instanceof Stop)) return undefined; // e.g. RangeError on absurd nesting: the caller falls back
    return { message: err.message, offset: err.offset, ...lineAndColumn(text, err.offset) };
  }
}
