import { memo } from 'react';
import { argsPreview, formatDuration } from '../lib/format.js';
import type { ToolCallView } from '../store/types.js';

const STATUS_LABEL = { running: 'running', ok: 'done', error: 'failed' } as const;
const MAX_SHOWN = 20_000;

function clip(text: string): string {
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}\n… (${(text.length - MAX_SHOWN).toLocaleString()} more characters)` : text;
}

/** One tool call in the timeline: name, arguments, live status, output or error, duration. */
export const ToolCallItem = memo(function ToolCallItem({ tool }: { tool: ToolCallView }) {
  const output = tool.result ?? tool.partial;
  return (
    <details className={`tool tool-${tool.status}`} data-testid="tool-call" data-status={tool.status}>
      <summary>
        <span className="tool-dot" aria-hidden="true" />
        <span className="tool-name">{tool.name}</span>
        <span className="tool-args muted">{argsPreview(tool.args)}</span>
        <span className="tool-meta">
          <span className="tool-status">{STATUS_LABEL[tool.status]}</span>
          {tool.durationMs !== undefined && <span className="muted">{formatDuration(tool.durationMs)}</span>}
        </span>
      </summary>
      <div className="tool-body">
        <div className="tool-section-label">Arguments</div>
        <pre className="tool-pre">{JSON.stringify(tool.args, null, 2)}</pre>
        {output !== '' && (
          <>
            <div className="tool-section-label">{tool.status === 'error' ? 'Error' : 'Result'}</div>
            <pre className={`tool-pre ${tool.status === 'error' ? 'tool-pre-error' : ''}`}>{clip(output)}</pre>
          </>
        )}
      </div>
    </details>
  );
});
