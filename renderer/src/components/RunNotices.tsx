import type { RetryData } from '../../../preload/contract.js';
import { formatDuration, formatTokens } from '../lib/format.js';

const REASON: Record<string, string> = {
  rate_limit: 'rate-limited',
  overloaded: 'overloaded',
  billing: 'billing problem',
  auth: 'key rejected',
  timeout: 'timed out',
  context_overflow: 'context too long',
  format: 'request rejected',
  model_not_found: 'model not found',
  server_error: 'server error',
  aborted: 'aborted',
  unknown: 'failed',
};

/** "rate-limited on anthropic:work, switching to anthropic:personal" */
export function retryLine(r: RetryData): string {
  const where = r.profileId ?? `${r.provider}/${r.model}`;
  const what = `${REASON[r.reason] ?? r.reason} on ${where}`;
  switch (r.next.action) {
    case 'rotate':
      return `${what}, switching to ${r.next.profileId}`;
    case 'backoff':
      return `${what}, retrying in ${formatDuration(r.next.waitMs)}`;
    case 'wait':
      return `${what}, waiting ${formatDuration(r.next.waitMs)} as the provider asked`;
    case 'fallback':
      return `${what}, falling back to ${r.next.provider}/${r.next.model}`;
    case 'compact':
      return `${what}, compacting the conversation and retrying`;
    case 'give_up':
      return `${what}, no other key or model to try`;
  }
}

export function RetryNotice({ retry }: { retry: RetryData }) {
  return (
    <div className="notice notice-retry" data-testid="retry-line" role="status" title={retry.message}>
      <span aria-hidden="true">↻</span> {retryLine(retry)}
    </div>
  );
}

export function CompactionDivider({ tokensBefore, tokensAfter, error }: { tokensBefore?: number; tokensAfter?: number; error?: string }) {
  const done = tokensBefore !== undefined && tokensAfter !== undefined;
  if (error) {
    return (
      <div className="divider divider-error" data-testid="compaction-notice" role="status" data-phase="failed" title={error}>
        <span>Compaction failed: {error.split('\n')[0]}</span>
      </div>
    );
  }
  return (
    <div className="divider" data-testid="compaction-notice" role="status" data-phase={done ? 'end' : 'start'}>
      <span>
        {done ? `Conversation compacted: ${formatTokens(tokensBefore)} → ${formatTokens(tokensAfter)} tokens` : 'Compacting the conversation…'}
      </span>
    </div>
  );
}
