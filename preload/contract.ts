/**
 * The typed API between the gateway (main process) and the renderer — shared by main, preload and renderer.
 * Transports (Electron IPC, loopback WebSocket, in-process) all carry exactly these requests and events.
 * This is the single entry every importer uses; the types live in contract/, one file per area. Those files import
 * only each other (type-only) and hold no runtime code but the IPC channel names, so every bundle can include them
 * (test/unit/architecture.test.ts checks it).
 */

export * from './contract/runs.js';
export * from './contract/sessions.js';
export * from './contract/auth.js';
export * from './contract/queue.js';
export * from './contract/approvals.js';
export * from './contract/checkpoints.js';
export * from './contract/settings.js';
export * from './contract/events.js';
export * from './contract/methods.js';
export * from './contract/ipc.js';
export * from './contract/mcp.js';
export * from './contract/commands.js';
export * from './contract/attachments.js';
export * from './contract/usage.js';
