import { useState } from 'react';

/** Collapsible reasoning of one assistant turn; open while the run is streaming, closed afterwards unless toggled. */
export function ThinkingPanel({ text, live }: { text: string; live: boolean }) {
  const [toggled, setToggled] = useState<boolean | undefined>(undefined);
  const open = toggled ?? live;
  return (
    <details
      className="thinking"
      data-testid="thinking"
      open={open}
      onToggle={(e) => {
        const next = (e.currentTarget as HTMLDetailsElement).open;
        if (next !== open) setToggled(next);
      }}
    >
      <summary>
        <span className="thinking-label">{live ? 'Thinking…' : 'Thinking'}</span>
        <span className="muted">{text.length.toLocaleString()} chars</span>
      </summary>
      <div className="thinking-body">{text}</div>
    </details>
  );
}
