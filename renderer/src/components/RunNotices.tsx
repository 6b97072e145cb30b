import type { RetryData } from '../../../preload/contract.js';
import { retryLine } from '../../../preload/messages/retry.js';
import { formatTokens } from '../lib/format.js';

/** "rate-limited on anthropic:work, switching to anthropic:personal" — the CLI's words too (preload/messages/retry.ts). */
export { retryLine };

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
