import type { ThinkingLevel } from '../../../preload/contract.js';
import { modelLabel } from '../lib/format.js';
import { selectModel, selectThinking, useChat } from '../store/chat-store.js';

const LEVELS: ThinkingLevel[] = ['off', 'minimal', 'low', 'medium', 'high'];

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

export function ThinkingPicker() {
  const thinking = useChat((s) => s.thinking);
  return (
    <label className="picker">
      <span className="picker-label">Thinking</span>
      <select
        aria-label="Thinking"
        value={thinking ?? ''}
        onChange={(e) => selectThinking(e.target.value === '' ? undefined : (e.target.value as ThinkingLevel))}
      >
        <option value="">Default</option>
        {LEVELS.map((l) => (
          <option key={l} value={l}>
            {l}
          </option>
        ))}
      </select>
    </label>
  );
}
