/** `node --import ./register.mjs …`: every `import 'electron'` in this process loads the stub (hooks.mjs). */
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
