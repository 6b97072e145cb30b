/** Settings › Defaults for new chats: model, thinking, queue mode (in words), approvals, sandbox, run timeout. */
import { useEffect, useState } from 'react';
import type { QueueMode, ThinkingLevel } from '../../../../../preload/contract.js';
import { useChat } from '../../../store/chat-store.js';
import { updateDefaults, useSettings } from '../../../store/settings-store.js';
import { QUEUE_MODES, THINKING_LEVELS } from '../../../lib/words.js';
import { Note } from './Note.js';

export function DefaultsSection() {
  const d = useSettings((s) => s.view!.defaults);
  const models = useChat((s) => s.models);
  return (
    <section id="settings-defaults" className="settings-section" aria-labelledby="h-defaults">
      <h2 id="h-defaults">Defaults for new chats</h2>
      <div className="defaults-grid">
        <label>
          Model
          <select aria-label="Default model" value={d.model ?? ''} onChange={(e) => void updateDefaults({ model: e.target.value || undefined })}>
            <option value="">Automatic</option>
            {models.map((m) => (
              <option key={m.ref} value={m.ref}>
                {m.demo ? 'Demo (offline)' : m.ref}
              </option>
            ))}
          </select>
          {!d.model && <span className="muted field-hint">A model you have a key for, else the offline demo.</span>}
        </label>
        <label>
          Thinking
          <select aria-label="Default thinking" value={d.thinking ?? 'off'} onChange={(e) => void updateDefaults({ thinking: e.target.value as ThinkingLevel })}>
            {THINKING_LEVELS.map(({ level, label }) => (
              <option key={level} value={level}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          A message sent while a reply runs
          <select aria-label="Queue mode" value={d.queueMode ?? 'followup'} onChange={(e) => void updateDefaults({ queueMode: e.target.value as QueueMode })}>
            {QUEUE_MODES.map((q) => (
              <option key={q.mode} value={q.mode}>
                {q.label}
              </option>
            ))}
          </select>
          <span className="muted field-hint">{QUEUE_MODES.find((q) => q.mode === (d.queueMode ?? 'followup'))!.hint}</span>
        </label>
        <label>
          Tool approval
          <select aria-label="Approval mode" value={d.approval ?? 'ask'} onChange={(e) => void updateDefaults({ approval: e.target.value as 'ask' | 'auto' | 'deny' })}>
            <option value="ask">Ask me</option>
            <option value="auto">Allow automatically</option>
            <option value="deny">Deny</option>
          </select>
        </label>
        <RunTimeout saved={d.timeoutSeconds ?? 600} />
        <label className="check">
          <input type="checkbox" aria-label="Sandbox" checked={d.sandbox ?? true} onChange={(e) => void updateDefaults({ sandbox: e.target.checked })} />
          Run commands in a sandbox (recommended)
        </label>
        <label className="check">
          <input type="checkbox" aria-label="Verbose replies" checked={d.verbose ?? false} onChange={(e) => void updateDefaults({ verbose: e.target.checked })} />
          Verbose replies: show the reasoning and a line for each tool call (a chat's /verbose wins)
        </label>
      </div>
      <Note section="defaults" />
    </section>
  );
}

const TIMEOUT_MAX = 604_800;

/** Whole seconds from 1 to 7 days; anything else is refused with a line saying so (item 13), never saved silently. */
function RunTimeout({ saved }: { saved: number }) {
  const [text, setText] = useState(String(saved));
  const [problem, setProblem] = useState<string>();
  useEffect(() => setText(String(saved)), [saved]);
  const commit = () => {
    const trimmed = text.trim();
    const v = Number(trimmed);
    if (!/^\d+$/.test(trimmed) || !Number.isInteger(v) || v < 1 || v > TIMEOUT_MAX) {
      setProblem(`Enter whole seconds from 1 to ${TIMEOUT_MAX.toLocaleString()} (7 days). Still ${saved} s.`);
      return;
    }
    setProblem(undefined);
    if (v !== saved) void updateDefaults({ timeoutSeconds: v });
  };
  return (
    <label>
      Run timeout (seconds)
      <input
        aria-label="Run timeout"
        inputMode="numeric"
        value={text}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? 'run-timeout-problem' : undefined}
        onChange={(e) => setText(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => e.key === 'Enter' && commit()}
      />
      {problem && (
        <span id="run-timeout-problem" className="field-problem" role="alert" data-testid="timeout-problem">
          {problem}
        </span>
      )}
    </label>
  );
}
