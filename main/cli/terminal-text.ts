/** Control characters shown as visible escapes on the terminal (X5): the shared function (preload/visible-text.ts). */
export { escapeForTerminal, hasUnsafeControls } from '../../preload/visible-text.js';
