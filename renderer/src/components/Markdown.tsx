import { memo, useMemo } from 'react';
import { parseBlocks, parseInline, type Block } from '../lib/markdown.js';

function InlineText({ text }: { text: string }) {
  return (
    <>
      {parseInline(text).map((part, i) => {
        switch (part.kind) {
          case 'code':
            return <code key={i}>{part.text}</code>;
          case 'strong':
            return <strong key={i}>{part.text}</strong>;
          case 'em':
            return <em key={i}>{part.text}</em>;
          case 'link':
            return (
              <a key={i} href={part.href} target="_blank" rel="noreferrer noopener">
                {part.text}
              </a>
            );
          default:
            return <span key={i}>{part.text}</span>;
        }
      })}
    </>
  );
}

/** One block; memoised so a streaming delta re-renders only the last block. */
const BlockView = memo(function BlockView({ block }: { block: Block }) {
  switch (block.kind) {
    case 'code':
      return (
        <pre className="md-code" data-lang={block.lang || undefined}>
          <code>{block.text}</code>
        </pre>
      );
    case 'heading': {
      const Tag = (['h3', 'h4', 'h5'] as const)[block.level - 1] ?? 'h5';
      return (
        <Tag className="md-heading">
          <InlineText text={block.text} />
        </Tag>
      );
    }
    case 'list': {
      const Tag = block.ordered ? 'ol' : 'ul';
      return (
        <Tag className="md-list">
          {block.items.map((item, i) => (
            <li key={i}>
              <InlineText text={item} />
            </li>
          ))}
        </Tag>
      );
    }
    case 'quote':
      return (
        <blockquote className="md-quote">
          <InlineText text={block.text} />
        </blockquote>
      );
    default:
      return (
        <p className="md-p">
          <InlineText text={block.text} />
        </p>
      );
  }
}, (a, b) => JSON.stringify(a.block) === JSON.stringify(b.block));

export function Markdown({ text }: { text: string }) {
  const blocks = useMemo(() => parseBlocks(text), [text]);
  return (
    <div className="md">
      {blocks.map((block, i) => (
        <BlockView key={i} block={block} />
      ))}
    </div>
  );
}
