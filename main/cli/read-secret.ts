/**
 * Reading an API key typed or pasted at a terminal (X5 "keys never echoed"): with the terminal's echo on, the key
 * would stand on the screen, in the scrollback and in any recording of the session. So on a terminal the input is
 * read in raw mode — nothing is echoed — up to Enter (or Ctrl-D), with Backspace and Ctrl-U editing and Ctrl-C
 * cancelling; piped input (`echo "$KEY" | agentdesk auth add …`) is read as it is.
 */

export type SecretKeys = { done: false; value: string } | { done: true; value: string } | { cancelled: true };

/**
 * Applies one chunk of raw terminal input to what was typed so far (pure: table-tested). `lines`: Enter starts a
 * new line (several secrets, one per line) and only Ctrl-D ends; otherwise Enter ends too.
 */
export function typeSecret(sofar: string, chunk: string, lines = false): SecretKeys {
  let value = sofar;
  // ESC sequences (arrow keys, a bracketed paste's ESC[200~ … ESC[201~ around the pasted text) are dropped whole.
  const keys = chunk.replace(/\x1b(\[[0-?]*[ -/]*[@-~]|O.|.)?/gs, '');
  for (const c of keys) {
    if (c === '\x03') return { cancelled: true }; // Ctrl-C
    if (c === '\x04') return { done: true, value }; // Ctrl-D
    if (c === '\r' || c === '\n') {
      if (!lines) return { done: true, value };
      if (c === '\r' || !value.endsWith('\n')) value += '\n';
    } else if (c === '\x7f' || c === '\b') value = value.endsWith('\n') ? value : [...value].slice(0, -1).join(''); // Backspace (within the line)
    else if (c === '\x15') value = value.slice(0, value.lastIndexOf('\n') + 1); // Ctrl-U: the current line
    else if (c >= ' ' && c !== '\x7f') value += c;
    // other control characters are dropped
  }
  return { done: false, value };
}

export interface SecretInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

/** The whole of piped stdin, or what is typed at a terminal without echo (`prompt` on stderr first; see typeSecret). */
export async function readSecret(input: SecretInput, promptOut: (s: string) => void, prompt: string, lines = false): Promise<string> {
  if (!input.isTTY || typeof input.setRawMode !== 'function') {
    const chunks: Buffer[] = [];
    for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    return Buffer.concat(chunks).toString('utf8');
  }
  promptOut(prompt);
  input.setRawMode(true);
  input.setEncoding('utf8');
  try {
    return await new Promise<string>((resolve, reject) => {
      let value = '';
      const onData = (chunk: string) => {
        const r = typeSecret(value, chunk, lines);
        if ('cancelled' in r) finish(() => reject(Object.assign(new Error('cancelled'), { name: 'CancelledError' })));
        else if (r.done) finish(() => resolve(r.value));
        else value = r.value;
      };
      const onEnd = () => finish(() => resolve(value));
      const finish = (then: () => void) => {
        input.removeListener('data', onData);
        input.removeListener('end', onEnd);
        input.pause();
        then();
      };
      input.on('data', onData);
      input.on('end', onEnd);
      input.resume();
    });
  } finally {
    input.setRawMode(false);
    promptOut('\n');
  }
}
