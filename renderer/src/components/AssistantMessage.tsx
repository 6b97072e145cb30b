import { memo } from 'react';
import { BudgetActions } from '../usage/BudgetActions.js';
import { describeError } from '../lib/errors.js';
import { formatTokens } from '../lib/format.js';
import { usdText } from '../usage/usage-store.js';
import { removeQueued, requestSettings, useChat } from '../store/chat-store.js';
import { busy, regenerate, retryRun, switchModelAndRetry } from '../store/branch-actions.js';
import type { AssistantTurn, TurnPart } from '../store/types.js';
import { CopyButton } from './CopyButton.js';
import { Markdown } from './Markdown.js';
import { CompactionDivider, RetryNotice } from './RunNotices.js';
import { ThinkingPanel } from './ThinkingPanel.js';
import { ToolCallItem } from './ToolCallItem.js';
import { ChangedFilesMark } from '../checkpoints/RestoreAction.js';

function PartView({ part, live, last }: { part: TurnPart; live: boolean; last: boolean }) {
  switch (part.kind) {
    case 'thinking':
      return <ThinkingPanel text={part.text} live={live && last} />;
    case 'text':
      return (
        <div className="msg-text">
          <Markdown text={part.text} />
        </div>
      );
    case 'tool':
      return <ToolCallItem tool={part.tool} />;
    case 'retry':
      return <RetryNotice retry={part.retry} />;
    case 'compaction':
      return <CompactionDivider tokensBefore={part.tokensBefore} tokensAfter={part.tokensAfter} error={part.error} />;
  }
}

const partKey = (part: TurnPart, i: number): string => (part.kind === 'tool' ? `tool-${part.tool.id}` : `${part.kind}-${i}`);

/** A failed run: one line saying what happened, and what the person can do about it. */
function RunError({ turn }: { turn: AssistantTurn }) {
  const view = describeError(turn.error ?? '');
  // Retry and Switch model re-run this turn in place: offered on the conversation's last turn, while nothing runs
  const actionable = useChat((s) => s.turns[s.turns.length - 1]?.id === turn.id && !busy(s.turns));
  return (
    <div className="run-error" data-kind={view.kind}>
      <span className="run-error-line" role="alert" title={turn.error}>
        {view.line}
      </span>
      <span className="run-error-actions">
        {view.actions.filter((a) => actionable || a === 'budget').map((a) =>
          a === 'budget' && view.budget ? (
            <BudgetActions key={a} budget={view.budget} />
          ) : a === 'retry' ? (
            <button key={a} type="button" className="btn btn-small" onClick={() => void retryRun(turn.id)}>
              Retry
            </button>
          ) : a === 'settings' ? (
            <button key={a} type="button" className="btn btn-small" onClick={() => requestSettings('keys')}>
              Open settings
            </button>
          ) : (
            <button key={a} type="button" className="btn btn-small" onClick={() => switchModelAndRetry(turn.id)}>
              Switch model
            </button>
          ),
        )}
      </span>
    </div>
  );
}

function RunFooter({ turn }: { turn: AssistantTurn }) {
  const text = turn.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('\n\n');
  const usage = turn.usage;
  // what the run was billed, as the ledger, the chat list and the top bar count it (the engine's prices)
  const cost = turn.cost;
  if (text === '' && !usage) return null;
  return (
    <footer className="msg-foot">
      {usage && (
        <span className="muted msg-usage" data-testid="turn-usage" title={`input ${usage.input}, cache read ${usage.cacheRead}, cache write ${usage.cacheWrite}, output ${usage.output}`}>
          {formatTokens(usage.input + usage.cacheRead + usage.cacheWrite)} in · {formatTokens(usage.output)} out
          {cost !== undefined && ` · ${usdText(cost)}`}
        </span>
      )}
      {text !== '' && <CopyButton text={text} label="Copy reply" />}
      {(turn.status === 'done' || turn.status === 'stopped') && <RegenerateButton turnId={turn.id} />}
    </footer>
  );
}

/** Regenerate: the reply asked for again; the conversation it leaves stays in the list ("Earlier version: …"). */
function RegenerateButton({ turnId }: { turnId: string }) {
  const running = useChat((s) => busy(s.turns));
  return (
    <button
      type="button"
      className="btn btn-quiet btn-small"
      data-testid="regenerate"
      disabled={running}
      title={running ? 'Wait for the reply to finish (or stop it)' : 'Ask for this reply again; this version stays in the chat list as “Earlier version: …”'}
      onClick={() => void regenerate(turnId)}
    >
      Regenerate
    </button>
  );
}

function QueueLine({ turn }: { turn: AssistantTurn }) {
  if (turn.status === 'queued') {
    return (
      <div className="notice" role="status">
        {turn.queue?.mode === 'collect'
          ? 'Waiting — merged with what you send meanwhile, sent when the current reply ends.'
          : turn.queue?.mode === 'steer'
            ? 'Waiting to steer the current reply.'
            : 'Waiting — sent when the current reply ends.'}
        {turn.runId && (
          <button type="button" className="btn btn-small btn-quiet" onClick={() => void removeQueued(turn.runId!)}>
            Remove
          </button>
        )}
      </div>
    );
  }
  if (turn.status === 'removed') return <div className="notice muted">Removed from the queue.</div>;
  return <div className="notice muted">Added to the reply that was running.</div>;
}

/** One run: thinking, text, tool rows and notices in the order they happened, then how it ended. */
export const AssistantMessage = memo(function AssistantMessage({ turn }: { turn: AssistantTurn }) {
  const live = turn.status === 'running';
  if (turn.status === 'queued' || turn.status === 'removed' || turn.status === 'merged') {
    return (
      <article className="msg msg-assistant msg-queued" data-testid="assistant-message" data-status={turn.status}>
        <QueueLine turn={turn} />
      </article>
    );
  }
  if (turn.status !== 'error' && turn.parts.length > 0 && turn.parts.every((p) => p.kind === 'compaction')) {
    // a compaction on its own (from /compact or the stored record): just the divider
    return (
      <div className="msg-divider" data-testid="assistant-message" data-status={turn.status}>
        {turn.parts.map((part, i) => (
          <PartView key={i} part={part} live={live} last={i === turn.parts.length - 1} />
        ))}
      </div>
    );
  }
  const empty = turn.parts.length === 0;
  const lastPart = turn.parts[turn.parts.length - 1];
  return (
    <article className="msg msg-assistant" data-testid="assistant-message" data-status={turn.status} aria-busy={live}>
      <header className="msg-head">
        <span className="msg-author">Assistant</span>
        {turn.model && <span className="muted msg-model">{turn.demo ? 'demo/agent' : (turn.answeredBy ?? turn.model)}</span>}
        {turn.demo && (
          <span className="badge" data-testid="demo-badge" title="Offline demo model: no key, no network">
            Demo model
          </span>
        )}
        <ChangedFilesMark turn={turn} />
      </header>
      {turn.warning && (
        <div className="notice notice-retry" role="status" data-testid="run-warning">
          {turn.warning}
        </div>
      )}
      {turn.parts.map((part, i) => (
        <PartView key={partKey(part, i)} part={part} live={live} last={i === turn.parts.length - 1} />
      ))}
      {live && lastPart?.kind !== 'thinking' && (
        <div className="working" role="status">
          <span className="spinner" aria-hidden="true" />
          {empty ? (turn.waitedMs ? `Waiting for a free slot (${Math.round(turn.waitedMs / 1000)} s)…` : 'Starting…') : 'Working…'}
        </div>
      )}
      {turn.status === 'stopped' && (
        <div className="run-stopped" data-testid="run-stopped" role="status">
          Stopped
        </div>
      )}
      {turn.status === 'error' && <RunError turn={turn} />}
      {!live && <RunFooter turn={turn} />}
    </article>
  );
});
