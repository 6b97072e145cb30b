// `node --import` this before the bundled bare-SDK script: the bench's yardstick gets --liftoff-only the way the bin
// sets it (bin/wasm-baseline.mjs: at the first fetch), so what the engine itself adds stays visible.
import { liftoffBeforeFirstFetch } from '../../bin/wasm-baseline.mjs';

liftoffBeforeFirstFetch();
