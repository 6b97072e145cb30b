/**
 * X2 wiring: the checkpoint store of a home folder with its settings (config.json `checkpoints`), the restore
 * service, the engine's gate, and removal with the session. Opening finishes an operation a killed process left
 * half-done (said once on stderr and kept for the UI in `notices`).
 */
import { escapeForTerminal } from '../../preload/visible-text.js';
import type { AppConfig } from '../engine/config/schema.js';
import type { SessionStore } from '../sessions/store.js';
import { createCheckpointGate, type GateDeps } from './gate.js';
import { CheckpointPrefetcher, type WorkerLike } from './prefetch.js';
import { CheckpointService, conversationSwitcher } from './service.js';
import { CheckpointStore, type CheckpointSettings } from './store.js';

const MB = 1024 * 1024;

export function settingsFrom(config: Pick<AppConfig, 'checkpoints'>): CheckpointSettings {
  const c = config.checkpoints;
  return { keep: c.keep, maxAgeMs: c.maxAgeDays * 24 * 3600 * 1000, maxFileBytes: c.maxFileMB * MB, maxTotalBytes: c.maxTotalMB * MB, maxEntries: c.maxEntries };
}

export interface OpenedCheckpoints {
  store: CheckpointStore;
  service: CheckpointService;
  /** Lines about operations finished after a crash (newest last). */
  notices: string[];
  /** The engine's gate; with `events`, each turn's capture is prepared on the checkpoint worker from the run's start. */
  gate(deps: Pick<GateDeps, 'run' | 'root' | 'events'>): ReturnType<typeof createCheckpointGate>;
  /** Waits for a checkpoint still committing, then stops the checkpoint worker (a capture in flight is thrown away). */
  close(): Promise<void>;
  /** Removes a deleted session's checkpoints (unless the key is in use again). */
  forgetSession(sessionKey: string): Promise<void>;
}

export async function openCheckpoints(o: {
  home: string;
  sessions: SessionStore;
  config: () => Pick<AppConfig, 'checkpoints'>;
  onNotice?: (line: string) => void;
  /** The checkpoint worker (default: the built one beside the bundle; none when running from source). */
  spawnWorker?: () => WorkerLike | undefined;
}): Promise<OpenedCheckpoints> {
  const notices: string[] = [];
  const store = new CheckpointStore(CheckpointStore.dirIn(o.home), {
    settings: () => settingsFrom(o.config()),
    exclude: [o.home],
    switchConversation: conversationSwitcher(o.sessions),
    onNotice: (line) => {
      notices.push(line);
      // A folder and a session key may hold anything: shown with control characters escaped, on one line (X5).
      (o.onNotice ?? ((l: string) => process.stderr.write(`agentdesk: ${escapeForTerminal(l).replace(/\n/g, '\\n')}\n`)))(line);
    },
  });
  await store.recoverNow();
  // Checkpoints of chats deleted by another process, or while the app was closing, go now (a directory listing
  // when there are none).
  await store.sweepSessions(async (key) => (await o.sessions.get(key)) !== undefined).catch((err: unknown) => {
    console.error(`[agentdesk] could not sweep old checkpoints: ${(err as Error).message}`);
  });
  const service = new CheckpointService({ store, sessions: o.sessions });
  const prefetch = new CheckpointPrefetcher({
    store,
    ...(o.spawnWorker ? { spawn: o.spawnWorker } : {}),
    onError: (line) => console.error(`[agentdesk] ${line}`),
  });
  return {
    store,
    service,
    notices,
    gate: (deps) => createCheckpointGate({ store, enabled: () => o.config().checkpoints.enabled, ...deps, ...(deps.events ? { prefetch } : {}) }),
    close: async () => {
      await store.settled();
      await prefetch.close();
    },
    forgetSession: async (sessionKey) => {
      try {
        if (await o.sessions.get(sessionKey)) return;
        await store.deleteSession(sessionKey);
      } catch (err) {
        console.error(`[agentdesk] could not remove the checkpoints of "${sessionKey}": ${(err as Error).message}`);
      }
    },
  };
}
