import { memo, useMemo } from 'react';
import { diffForTool } from '../lib/diff.js';
import { DiffView } from './DiffView.js';
import { formatDuration, toolSummary } from '../lib/format.js';
import type { ToolCallView } from '../store/types.js';
import { ApprovalCard } from '../approvals/ApprovalCard.js';
import { escapeForTerminal } from '../../../preload/visible-text.js';

const STATUS_LABEL = { running: 'running', ok: 'done', error: 'failed' } as const;
const MAX_SHOWN = 20_000;
const LIVE_TAIL = 4_000;

function clip(text: string): string {
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}\n… (${(text.length - MAX_SHOWN).toLocaleString()} more characters)` : text;
}

/**
 * One tool call in the run: name, a one-line summary of its arguments, status and duration; live output while an
 * exec runs; expands to the full arguments (a diff for edits and patches) and the result or error.
 */
export const ToolCallItem = memo(function ToolCallItem({ tool }: { tool: ToolCallView }) {
  const diff = useMemo(() => diffForTool(tool.name, tool.args), [tool.name, tool.args]);
  const running = tool.status === 'running';
  const output = tool.result ?? tool.partial;
  return (
    <div className={`tool tool-${tool.status}`} data-testid="tool-call" data-status={tool.status}>
      <details>
        <summary>
          <span className="tool-dot" aria-hidden="true" />
          <span className="tool-name">{tool.name}</span>
          {/* X5: a bidi override or a carriage return in the arguments shown as an escape, never obeyed */}
          <span className="tool-args muted">{escapeForTerminal(toolSummary(tool.name, tool.args))}</span>
          <span className="tool-meta">
            <span className="tool-status">{STATUS_LABEL[tool.status]}</span>
            {tool.durationMs !== undefined && <span className="muted">{formatDuration(tool.durationMs)}</span>}
          </span>
        </summary>
        <div className="tool-body">
          <div className="tool-section-label">{diff ? 'Change' : 'Arguments'}</div>
          {diff ? <DiffView diff={diff} className="tool-pre diff" testId="tool-diff" /> : <pre className="tool-pre">{JSON.stringify(tool.args, null, 2)}</pre>}
          {!running && output !== '' && (
            <>
              <div className="tool-section-label">{tool.status === 'error' ? 'Error' : 'Result'}</div>
              <pre className={`tool-pre ${tool.status === 'error' ? 'tool-pre-error' : ''}`}>{clip(output)}</pre>
            </>
          )}
        </div>
      </details>
      <ApprovalCard toolCallId={tool.id} />
      {running && tool.partial !== '' && (
        <pre className="tool-pre tool-live" data-testid="tool-live" aria-live="off">
          {tool.partial.length > LIVE_TAIL ? `…${tool.partial.slice(-LIVE_TAIL)}` : tool.partial}
        </pre>
      )}
      {tool.status === 'error' && tool.result && (
        <div className="tool-error-line" title={tool.result}>
          {tool.result.split('\n')[0]}
        </div>
      )}
    </div>
  );
});
