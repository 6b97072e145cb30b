import { memo, useMemo, type ReactElement, type ReactNode } from 'react';
import renderMarkdown, { type Components } from 'react-markdown';
import rehypeSanitize from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import { safeHref, splitBlocks } from '../lib/markdown.js';
import { CodeBlock } from './CodeBlock.js';

function textOf(node: ReactNode): string {
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map(textOf).join('');
  return '';
}

const components: Components = {
  // fenced and indented code: a <pre><code> pair; inline code stays <code>
  pre({ children }) {
    const child = Array.isArray(children) ? children[0] : children;
    const props = (child as { props?: { className?: string; children?: ReactNode } } | undefined)?.props;
    const lang = /language-([\w+#.-]+)/.exec(props?.className ?? '')?.[1] ?? '';
    const code = textOf(props?.children).replace(/\n$/, '');
    return <CodeBlock code={code} lang={lang} />;
  },
  a({ href, children }) {
    const safe = safeHref(href);
    if (!safe) return <span className="md-link-blocked" title="Link not opened: only http(s) links are allowed">{children}</span>;
    // Opens in the OS browser: a new window in a browser tab; the Electron shell's window-open handler hands it on.
    return (
      <a href={safe} target="_blank" rel="noopener noreferrer" title={safe}>
        {children}
      </a>
    );
  },
  table({ children }) {
    return (
      <div className="md-table-wrap">
        <table>{children}</table>
      </div>
    );
  },
  img({ alt }) {
    return <span className="muted">[image: {alt}]</span>; // no remote content (CSP); the alt text is shown
  },
};

const remarkPlugins = [remarkGfm];
const rehypePlugins = [rehypeSanitize];

/**
 * Parsed blocks by source text. A virtualised list mounts a message again each time it scrolls into view; the
 * element tree of a finished block is immutable, so it is parsed once and reused.
 */
const CACHE_MAX = 2000;
const cache = new Map<string, ReactElement>();
function parsed(source: string): ReactElement {
  let el = cache.get(source);
  if (el) {
    cache.delete(source); // least recently used goes first
    cache.set(source, el);
    return el;
  }
  el = renderMarkdown({ children: source, remarkPlugins, rehypePlugins, components }) as ReactElement;
  cache.set(source, el);
  if (cache.size > CACHE_MAX) cache.delete(cache.keys().next().value!);
  return el;
}

const Block = memo(function Block({ source }: { source: string }) {
  return parsed(source);
});

/** GFM markdown, sanitised. Split into blocks so streaming re-renders only the block still being written. */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const blocks = useMemo(() => splitBlocks(text), [text]);
  return (
    <div className="md">
      {blocks.map((source, i) => (
        <Block key={i} source={source} />
      ))}
    </div>
  );
});
