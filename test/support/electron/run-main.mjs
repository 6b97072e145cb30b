/**
 * Child-process entry of a stubbed desktop app: `node --import register.mjs run-main.mjs <main.js>` loads the
 * app's built main bundle the way Electron does (process.argv[1] = the entry; 'ready' once the entry has been
 * evaluated) and lets the parent test drive it over the IPC channel (`fork`, advanced serialization):
 *   parent → { id, fn, arg }   runs `fn` (a function's source) with (electronStub, arg), replies { id, ok, value | error }.
 * The process ends the way the stubbed Electron ends it: after 'quit' (exit 0) or app.exit(code).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const main = resolve(process.argv[2]);
process.argv.splice(1, 2, main);

const electron = await import('electron');

process.on('message', async (msg) => {
  if (!msg || typeof msg.fn !== 'string') return;
  try {
    // eslint-disable-next-line no-new-func -- the parent test sends a function to run here, like Playwright's evaluate
    const fn = new Function(`return (${msg.fn});`)();
    const value = await fn(electron, msg.arg);
    process.send?.({ id: msg.id, ok: true, value });
  } catch (err) {
    process.send?.({ id: msg.id, ok: false, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) });
  }
});

await import(pathToFileURL(main).href);
electron.__stub.ready();
