import { useEffect, useState } from 'react';
import type { ThinkingLevel } from '../../../preload/contract.js';
import { formatUntil, modelLabel } from '../lib/format.js';
import { selectModel, selectThinking, useChat } from '../store/chat-store.js';
import { THINKING_LEVELS } from '../lib/words.js';


const REASON: Record<string, string> = {
  rate_limit: 'rate limit',
  overloaded: 'overloaded',
  billing: 'billing',
  auth: 'key rejected',
  timeout: 'timeouts',
};

export function ModelPicker() {
  const models = useChat((s) => s.models);
  const model = useChat((s) => s.model);
  return (
    <label className="picker">
      <span className="picker-label">Model</span>
      <select aria-label="Model" value={model ?? ''} onChange={(e) => selectModel(e.target.value)} disabled={models.length === 0}>
        {models.map((m) => (
          <option key={m.ref} value={m.ref} disabled={!m.hasKey && !m.demo && m.ref !== model}>
            {modelLabel(m)}
          </option>
        ))}
      </select>
    </label>
  );
}

/** E6: the keys of the chosen model's provider that are cooling down, and until when (from `auth.status`). */
export function ProfileCooldowns() {
  const profiles = useChat((s) => s.profiles);
  const model = useChat((s) => s.model);
  const [now, setNow] = useState(() => Date.now());
  const provider = model?.split('/')[0];
  // A key cools for every model (its own window) or for the chosen one only (a rate limit is the model's).
  const cooling = profiles
    .filter((p) => p.provider === provider)
    .map((p) => {
      const scoped = p.modelCooldowns?.find((m) => m.model === model && m.until > now);
      if (p.state === 'cooling' && (p.cooldownUntil ?? 0) > now) return { ...p, cooldownUntil: Math.max(p.cooldownUntil!, scoped?.until ?? 0) };
      return scoped ? { ...p, cooldownUntil: scoped.until, reason: scoped.reason } : undefined;
    })
    .filter((p) => p !== undefined);
  useEffect(() => {
    if (cooling.length === 0) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [cooling.length]);
  if (cooling.length === 0) return null;
  return (
    <span className="cooldowns" data-testid="profile-cooldowns" role="status">
      {cooling.map((p) => (
        <span
          key={p.id}
          className="cooldown"
          title={`${p.id} is cooling down until ${new Date(p.cooldownUntil!).toLocaleTimeString()}${p.lastError ? `: ${p.lastError}` : ''}`}
        >
          {p.id} cooling{p.reason && REASON[p.reason] ? ` (${REASON[p.reason]})` : ''} · {formatUntil(p.cooldownUntil!, now)}
        </span>
      ))}
    </span>
  );
}

/**
 * The chat's thinking level: the five levels once (no separate "Default" entry repeating one of them). A chat that
 * has not chosen shows the default level, marked "(default)".
 */
export function ThinkingPicker() {
  const thinking = useChat((s) => s.thinking);
  const fallback = useChat((s) => s.appInfo?.defaultThinking ?? 'off');
  return (
    <label className="picker">
      <span className="picker-label">Thinking</span>
      <select aria-label="Thinking" value={thinking ?? fallback} onChange={(e) => selectThinking(e.target.value as ThinkingLevel)}>
        {THINKING_LEVELS.map(({ level, label }) => (
          <option key={level} value={level}>
            {label}
            {thinking === undefined && level === fallback ? ' (default)' : ''}
          </option>
        ))}
      </select>
    </label>
  );
}
