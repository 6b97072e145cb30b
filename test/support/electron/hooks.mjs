/** Node module-resolution hook: `electron` (from any importer: the app's bundle, electron-store) → the stub. */
const STUB = new URL('./electron.mjs', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'electron') return { url: STUB, format: 'module', shortCircuit: true };
  return nextResolve(specifier, context);
}
