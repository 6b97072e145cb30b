// The command line keeps WebAssembly at V8's baseline compiler (`--liftoff-only`; why: bin/agentdesk.mjs) — but
// sets that flag just before the process's first fetch(), not at start-up.
//
// A V8 flag changed at run time changes V8's flag hash, and V8 takes a code cache only under the hash it was made
// with: Node's own cache of its built-in modules (embedded in the binary) and this command line's (code-cache.mjs).
// With the flag set at start-up, as it was, every built-in loaded afterwards — most of what the bundle requires,
// undici (Node's fetch), all of a worker thread's start — was compiled from source. Measured on the 2-core machine
// (CPU time): undici's load 23–36 → 46–69 ms, fifteen common built-ins and undici 34–40 → 70–85 ms, the checkpoint
// worker's start 42–48 → 67–97 ms.
//
// The first WebAssembly a turn compiles is the HTTP parser (llhttp), when fetch() opens its first connection. So the
// first call of fetch() loads undici's JavaScript (still under the start-up flags) and then sets the flag: the same
// peak memory as the flag at start-up (62 MB against 85 MB without it, a script fetching 3 × 300 KB) and less CPU.
// The bundle's files are compiled, and their code cache saved, under the start-up flags (`withStartupFlags`), so a
// cache made by one run is taken by the next, whether or not either of them fetched.
import { setFlagsFromString } from 'node:v8';
import vm from 'node:vm';

const FLAG = '--liftoff-only';
/** The flag undone, with what V8 implied when it was set (Node 20's V8: no wasm tier-up, no dynamic tiering). */
const UNDO = '--no-liftoff-only --wasm-tier-up --wasm-dynamic-tiering';

let set = false;

/**
 * Makes the first call of `g.fetch` set `--liftoff-only` first. If this V8 implies more than UNDO undoes (checked
 * with a probe's code cache), the flag is set now instead, as before: caches then hold under it from the start.
 */
export function liftoffBeforeFirstFetch(g = globalThis) {
  const real = g.fetch;
  if (typeof real !== 'function' || !undoes(UNDO)) {
    setFlagsFromString(FLAG);
    return;
  }
  g.fetch = function fetch(input, init) {
    if (!set) {
      void g.Headers; // undici's JavaScript: loaded now, with Node's code cache
      setFlagsFromString(FLAG);
      set = true;
    }
    return real.call(this, input, init);
  };
}

/** Runs `fn` (a compile that takes a code cache, or a code cache's creation) under the start-up flags. */
export function withStartupFlags(fn) {
  if (!set) return fn();
  setFlagsFromString(UNDO);
  try {
    return fn();
  } finally {
    setFlagsFromString(FLAG);
  }
}

/**
 * Whether `undo` gives the start-up flags back after FLAG: a probe's code cache, made now, is still taken after FLAG
 * and `undo`. Leaves the flags as `undo` left them.
 */
export function undoes(undo) {
  const cachedData = new vm.Script('0', { filename: 'agentdesk-flag-probe' }).createCachedData();
  setFlagsFromString(FLAG);
  setFlagsFromString(undo);
  // Compiled under another name: the same one would come from V8's in-memory compilation cache, which checks no flag.
  return !new vm.Script('0', { filename: 'agentdesk-flag-probe-check', cachedData }).cachedDataRejected;
}
