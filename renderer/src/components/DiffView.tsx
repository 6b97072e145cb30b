import { useMemo } from 'react';
import { classifyDiff } from '../lib/diff.js';

/** A unified diff coloured line by line (added, removed, hunk headers, context). */
export function DiffView({ diff, className, testId }: { diff: string; className: string; testId: string }) {
  const lines = useMemo(() => classifyDiff(diff), [diff]);
  return (
    <pre className={className} data-testid={testId}>
      {lines.map((l, i) => (
        <span key={i} className={`diff-${l.kind}`}>
          {l.text}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}
