import { useEffect, useRef, useState } from 'react';
import { DiffView } from '../components/DiffView.js';
import { respondToApproval, useApprovals, type ApprovalRequest } from './approval-store.js';
import './approval-card.css';
import { McpApprovalInfo } from '../mcp/McpApprovalInfo.js';
import { escapeForTerminal, hasUnsafeControls } from '../../../preload/visible-text.js';

/** X5: control and invisible characters (a carriage return, a bidi override) shown as escapes, and said so. */
function Hidden({ text }: { text: string }) {
  if (!hasUnsafeControls(text)) return null;
  return (
    <p className="approval-controls" role="alert" data-testid="approval-controls">
      It contains control or invisible characters, shown as escapes (\r, \x1b, \u202e…): what it does may differ from how it
      would look.
    </p>
  );
}

function What({ req }: { req: ApprovalRequest }) {
  if (req.tool === 'exec' && typeof req.args.command === 'string') {
    return (
      <>
        <pre className="approval-pre approval-command" data-testid="approval-command">{`$ ${escapeForTerminal(req.args.command)}`}</pre>
        <Hidden text={req.args.command} />
      </>
    );
  }
  if (req.diff) {
    return (
      <>
        <DiffView diff={escapeForTerminal(req.diff)} className="approval-pre approval-diff" testId="approval-diff" />
        <Hidden text={req.diff} />
      </>
    );
  }
  return <pre className="approval-pre">{JSON.stringify(req.args, null, 2)}</pre>;
}

/**
 * The approval card shown under a tool call that waits for the person (T3): what would run (the command, or the
 * diff of an edit; the full arguments one click away), where, and whether it is sandboxed; Allow once / Allow for
 * this session / Deny… with an optional reason the model sees (a click on Deny… or Escape opens the reason field,
 * Enter denies). Keyboard: the first button takes focus; Tab moves, Enter or Space answers. An unanswered request
 * is refused at `expiresAt` (the card says when). A change to a protected path (X5) names each
 * path and why it is dangerous, and offers "Allow this change" and Deny… only.
 */
export function ApprovalCard({ toolCallId }: { toolCallId: string }) {
  const req = useApprovals((s) => s.byToolCall[toolCallId]);
  const busy = useApprovals((s) => (req ? !!s.answering[req.approvalId] : false));
  const error = useApprovals((s) => s.error);
  const [denying, setDenying] = useState(false);
  const [reason, setReason] = useState('');
  const first = useRef<HTMLButtonElement>(null);
  const reasonRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (req) first.current?.focus();
  }, [req?.approvalId]);
  useEffect(() => {
    if (denying) reasonRef.current?.focus();
  }, [denying]);

  if (!req) return null;
  const risks = req.risks ?? [];
  const answer = (decision: 'allow_once' | 'allow_session' | 'deny') => void respondToApproval(req.approvalId, decision, decision === 'deny' ? reason : undefined);

  return (
    <section
      className="approval-card"
      role="group"
      aria-label={`Approve ${req.tool}`}
      data-testid="approval-card"
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault(); // never the chat's "Esc stops the reply"
          setDenying(!denying);
        }
      }}
    >
      <header className="approval-head">
        <strong>{req.tool === 'exec' ? 'Run this command?' : req.mcp ? `Allow ${req.mcp.tool} (MCP)?` : `Allow ${req.tool}?`}</strong>
        {req.tool === 'exec' && (
          <span className={req.sandboxed ? 'approval-badge' : 'approval-badge approval-badge-warn'} data-testid="approval-sandbox">
            {req.sandboxed ? 'sandboxed' : 'not sandboxed — full access to your files'}
          </span>
        )}
      </header>
      {req.mcp && <McpApprovalInfo req={req} busy={busy} allowOnce={() => answer('allow_once')} />}
      {risks.length > 0 && (
        <div className="approval-risks" role="alert" data-testid="approval-risks">
          <strong>Protected {risks.length > 1 ? 'paths' : 'path'} — it could run outside the sandbox later</strong>
          <ul>
            {risks.map((r) => (
              <li key={r.path}>
                <code>{escapeForTerminal(r.path)}</code>: {r.why}
              </li>
            ))}
          </ul>
          <span className="muted">Allowing covers this change only.</span>
        </div>
      )}
      <What req={req} />
      <div className="approval-cwd muted">in {req.cwd}</div>
      <details className="approval-args">
        <summary>All arguments</summary>
        <pre className="approval-pre">{JSON.stringify(req.args, null, 2)}</pre>
      </details>
      {req.expiresAt !== undefined && (
        <div className="approval-expiry muted" data-testid="approval-expiry">
          If nobody answers by {new Date(req.expiresAt).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}, it is refused and the
          assistant is told.
        </div>
      )}
      {denying ? (
        <form
          className="approval-reason"
          onSubmit={(e) => {
            e.preventDefault();
            answer('deny');
          }}
        >
          <input
            ref={reasonRef}
            aria-label="Reason for denying (optional, the assistant sees it)"
            placeholder="Reason (optional, the assistant sees it)"
            value={reason}
            onChange={(e) => setReason(e.target.value)}
          />
          <div className="approval-actions">
            <button type="submit" className="danger" disabled={busy}>
              Deny
            </button>
            <button type="button" disabled={busy} onClick={() => setDenying(false)}>
              Back
            </button>
          </div>
        </form>
      ) : (
        <div className="approval-actions">
          <button ref={first} type="button" className="primary" disabled={busy} onClick={() => answer('allow_once')}>
            {risks.length > 0 ? 'Allow this change' : 'Allow once'}
          </button>
          {risks.length === 0 && (
            <button type="button" disabled={busy} onClick={() => answer('allow_session')}>
              Allow for this session
            </button>
          )}
          <button type="button" className="danger" disabled={busy} onClick={() => setDenying(true)}>
            Deny…
          </button>
        </div>
      )}
      {error && <div className="approval-error" role="alert">{error}</div>}
    </section>
  );
}
