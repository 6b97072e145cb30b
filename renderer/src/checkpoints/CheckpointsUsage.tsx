import { useEffect } from 'react';
import { loadCheckpointUsage, useCheckpoints } from './checkpoint-store.js';

const size = (bytes: number) =>
  bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : bytes < 1024 ** 3 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${(bytes / 1024 ** 3).toFixed(2)} GB`;

/** Settings › Checkpoints: how much disk the undo history takes. */
export function CheckpointsUsage() {
  const usage = useCheckpoints((s) => s.usage);
  useEffect(() => void loadCheckpointUsage(), []);
  return (
    <section id="settings-checkpoints" className="settings-section" aria-labelledby="h-checkpoints">
      <h2 id="h-checkpoints">Checkpoints</h2>
      <p>
        Before a reply first changes the folder, AgentDesk keeps a copy of it, so “Restore…” on a message can put the files back — also what
        commands changed. Files your <code>.gitignore</code> excludes, <code>.git</code> and <code>node_modules</code> are not copied.
      </p>
      <p data-testid="checkpoints-usage">
        {usage ? `On disk: ${size(usage.bytes)} for ${usage.sessions} ${usage.sessions === 1 ? 'chat' : 'chats'}.` : 'On disk: …'} The last 100
        checkpoints of each chat are kept for 30 days (<code>checkpoints</code> in config.json); a chat’s checkpoints are removed with it.
      </p>
    </section>
  );
}
