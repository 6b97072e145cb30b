import { memo } from 'react';
import type { AssistantTurn } from '../store/types.js';
import { Markdown } from './Markdown.js';
import { ThinkingPanel } from './ThinkingPanel.js';
import { ToolCallItem } from './ToolCallItem.js';

/** One run: thinking, then text and tool calls in the order they happened, then its error if it failed. */
export const AssistantMessage = memo(function AssistantMessage({ turn }: { turn: AssistantTurn }) {
  const live = turn.status === 'running';
  const empty = turn.parts.length === 0 && turn.thinking === '';
  return (
    <article className="msg msg-assistant" data-testid="assistant-message" data-status={turn.status} aria-busy={live}>
      <header className="msg-head">
        <span className="msg-author">Assistant</span>
        {turn.model && <span className="muted msg-model">{turn.demo ? 'demo/agent' : turn.model}</span>}
        {turn.demo && (
          <span className="badge" data-testid="demo-badge" title="Offline demo model: no key, no network">
            Demo model
          </span>
        )}
      </header>
      {turn.thinking !== '' && <ThinkingPanel text={turn.thinking} live={live && turn.parts.length === 0} />}
      {turn.parts.map((part, i) =>
        part.kind === 'text' ? (
          <div className="msg-text" key={i}>
            <Markdown text={part.text} />
          </div>
        ) : (
          <ToolCallItem key={part.tool.id} tool={part.tool} />
        ),
      )}
      {live && (
        <div className="working" role="status">
          <span className="spinner" aria-hidden="true" />
          {empty ? 'Starting…' : 'Working…'}
        </div>
      )}
      {turn.status === 'error' && (
        <div className="run-error" role="alert">
          {turn.error ?? 'The run ended with an error.'}
        </div>
      )}
    </article>
  );
});
