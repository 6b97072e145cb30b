import { memo, useEffect, useState } from 'react';
import type { ThemedToken } from 'shiki/core';
import { cachedHighlight, highlight, langLabel } from '../lib/highlight.js';
import { CopyButton } from './CopyButton.js';

/**
 * A fenced code block: language label, copy button (copies the exact code), shiki colours once its grammar has
 * loaded (plain text until then — same layout, so nothing jumps). Long lines scroll horizontally.
 */
export const CodeBlock = memo(function CodeBlock({ code, lang }: { code: string; lang: string }) {
  const [tokens, setTokens] = useState<{ code: string; lines: ThemedToken[][] } | undefined>(() => {
    const lines = cachedHighlight(code, lang);
    return lines ? { code, lines } : undefined;
  });
  useEffect(() => {
    if (tokens?.code === code) return; // already highlighted (from the cache)
    let live = true;
    // while streaming, the code grows each frame: highlight after a short pause instead of on every delta
    const timer = setTimeout(() => {
      highlight(code, lang).then(
        (lines) => live && setTokens(lines ? { code, lines } : undefined),
        () => undefined, // highlighting is decoration: the plain block stays
      );
    }, tokens ? 120 : 0);
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [code, lang]);

  const label = langLabel(lang);
  const current = tokens && code.startsWith(tokens.code) ? tokens : undefined;
  const rest = current ? code.slice(current.code.length) : code;
  return (
    <div className="code-block" data-testid="code-block" data-lang={label} data-highlighted={current ? 'true' : 'false'}>
      <div className="code-head">
        <span className="code-lang">{label}</span>
        <CopyButton text={code} label="Copy code" />
      </div>
      <pre className="code-pre" tabIndex={0}>
        <code>
          {current?.lines.map((line, i) => (
            <span className="code-line" key={i}>
              {line.map((t, j) => (
                <span key={j} style={t.htmlStyle as React.CSSProperties | undefined}>
                  {t.content}
                </span>
              ))}
              {i < current.lines.length - 1 || rest !== '' ? '\n' : ''}
            </span>
          ))}
          {rest}
        </code>
      </pre>
    </div>
  );
});
