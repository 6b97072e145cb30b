import { useState } from 'react';

/**
 * One thinking segment of a run. Open while it streams; folds by itself once something follows it (the answer or
 * a tool), unless the reader toggled it.
 */
export function ThinkingPanel({ text, live }: { text: string; live: boolean }) {
  const [toggled, setToggled] = useState<boolean | undefined>(undefined);
  const open = toggled ?? live;
  return (
    <details
      className="thinking"
      data-testid="thinking"
      data-live={live ? 'true' : 'false'}
      open={open}
      onToggle={(e) => {
        const next = (e.currentTarget as HTMLDetailsElement).open;
        if (next !== open) setToggled(next);
      }}
    >
      <summary>
        <span className="thinking-label">{live ? 'Thinking…' : 'Thought'}</span>
        <span className="muted">{text.length.toLocaleString()} chars</span>
      </summary>
      <div className="thinking-body">{text}</div>
    </details>
  );
}
