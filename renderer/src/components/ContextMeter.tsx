import { useMemo } from 'react';
import { contextFigure } from '../lib/context.js';
import { formatTokens } from '../lib/format.js';
import { useChat } from '../store/chat-store.js';

/** Tokens the conversation uses in the model's context window. */
export function ContextMeter() {
  const turns = useChat((s) => s.turns);
  const models = useChat((s) => s.models);
  const model = useChat((s) => s.model);
  const fig = useMemo(() => contextFigure(turns, models, model), [turns, models, model]);
  if (!fig) return null;
  const share = fig.window ? Math.min(1, fig.used / fig.window) : undefined;
  const label = `${fig.estimated ? '≈' : ''}${formatTokens(fig.used)}${fig.window ? ` / ${formatTokens(fig.window)}` : ''}`;
  return (
    <span
      className={`ctx-meter ${share !== undefined && share > 0.8 ? 'ctx-high' : ''}`}
      data-testid="context-meter"
      data-used={fig.used}
      title={`Context: ${fig.used.toLocaleString()} tokens${fig.window ? ` of ${fig.window.toLocaleString()}` : ''}${fig.estimated ? ' (estimated from the text)' : ' (from the last reply)'}`}
    >
      {share !== undefined && (
        <span className="ctx-bar" role="meter" aria-label="Context used" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(share * 100)}>
          <span className="ctx-fill" style={{ width: `${(share * 100).toFixed(1)}%` }} />
        </span>
      )}
      <span className="ctx-text">{label}</span>
    </span>
  );
}
