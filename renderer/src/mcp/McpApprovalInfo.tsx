import { useState } from 'react';
import type { ApprovalData } from '../../../preload/contract.js';
import { setServerApproval, setTool } from './mcp-store.js';
import './mcp.css';

type Request = Extract<ApprovalData, { phase: 'request' }>;

/**
 * X1: what the approval card shows of an MCP tool call — the server, its own tool name, its hints (labelled as the
 * server's own claim) — and "Always allow" for the tool or the whole server (saved in Settings, then allowed once).
 */
export function McpApprovalInfo({ req, allowOnce, busy }: { req: Request; allowOnce: () => void; busy: boolean }) {
  const [saving, setSaving] = useState(false);
  const mcp = req.mcp!;
  const a = mcp.annotations ?? {};
  const hints = [
    a.readOnlyHint ? 'read-only' : a.readOnlyHint === false ? 'may change things' : undefined,
    a.destructiveHint ? 'destructive' : undefined,
    a.openWorldHint ? 'reaches outside services' : undefined,
  ].filter(Boolean);
  const always = async (what: 'tool' | 'server') => {
    setSaving(true);
    const ok = what === 'tool' ? await setTool(mcp.server, mcp.tool, { alwaysAllow: true }) : await setServerApproval(mcp.server, 'auto');
    setSaving(false);
    if (ok) allowOnce();
  };
  return (
    <div className="approval-mcp" data-testid="approval-mcp">
      <div>
        MCP server <strong>{mcp.server}</strong> · tool <code>{mcp.tool}</code>
        {a.title ? ` (${a.title})` : ''}
      </div>
      {hints.length > 0 && (
        <div className="muted" data-testid="approval-mcp-hints">
          The server says: {hints.join(', ')} (its own claim, not checked)
        </div>
      )}
      <div className="approval-mcp-actions">
        <button type="button" disabled={busy || saving} onClick={() => void always('tool')}>
          Always allow this tool
        </button>
        <button type="button" disabled={busy || saving} onClick={() => void always('server')}>
          Always allow this server
        </button>
      </div>
    </div>
  );
}
