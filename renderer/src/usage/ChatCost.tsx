import { useUsage, usdText } from './usage-store.js';

/** What a chat has cost so far (sidebar row, chat header); nothing before its first priced call. */
export function ChatCost({ sessionKey, className }: { sessionKey: string; className?: string }) {
  const usd = useUsage((s) => s.byChat[sessionKey]);
  if (usd === undefined) return null;
  return (
    <span className={className ?? 'chat-cost'} data-testid="chat-cost" title="What this chat's model calls cost (compaction included)">
      {usdText(usd)}
    </span>
  );
}
