import { useEffect, useState } from 'react';
import type { AttachmentDto } from '../../../preload/contract.js';
import { previewUrl, removeAttachment, useAttach } from './attach-store.js';

const size = (n: number) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : n >= 1024 ? `${Math.round(n / 1024)} KB` : `${n} B`);

/** A stored image as a thumbnail (fetched from the gateway once). */
export function Thumb({ id, name, className }: { id: string; name: string; className?: string }) {
  const [src, setSrc] = useState<string>();
  useEffect(() => {
    let live = true;
    void previewUrl(id).then((u) => live && setSrc(u));
    return () => {
      live = false;
    };
  }, [id]);
  return src ? <img className={className ?? 'attach-thumb'} src={src} alt={name} /> : <span className={`${className ?? 'attach-thumb'} attach-thumb-empty`} aria-label={name} />;
}

export function AttachmentChip({ a, onRemove }: { a: AttachmentDto; onRemove?: () => void }) {
  const what = a.type === 'image' ? `${a.width ?? '?'}×${a.height ?? '?'} · ${size(a.bytes)}` : a.mention === 'folder' ? 'folder listing' : size(a.bytes);
  return (
    <span className="attach-chip" data-testid="attachment-chip" data-kind={a.type}>
      {a.type === 'image' ? (
        <Thumb id={a.id} name={a.name} />
      ) : (
        <span className="attach-kind" aria-hidden="true">
          {a.mention === 'folder' ? 'dir' : (/\.(\w{1,5})$/.exec(a.name)?.[1] ?? 'txt')}
        </span>
      )}
      <span className="attach-name" title={a.name}>
        {a.mention ? '@' : ''}
        {a.name}
      </span>
      <span className="attach-meta muted">{what}</span>
      {onRemove && (
        <button type="button" className="attach-remove" aria-label={`Remove ${a.name}`} onClick={onRemove}>
          ×
        </button>
      )}
    </span>
  );
}

/** The draft's attachments above the message box, with a line when one was refused. */
export function AttachmentTray() {
  const items = useAttach((s) => s.items);
  const uploading = useAttach((s) => s.uploading);
  const error = useAttach((s) => s.error);
  if (items.length === 0 && uploading === 0 && !error) return null;
  return (
    <div className="attach-tray" data-testid="attach-tray">
      {items.map((a, i) => (
        <AttachmentChip key={`${a.id}-${i}`} a={a} onRemove={() => removeAttachment(i)} />
      ))}
      {uploading > 0 && <span className="attach-chip muted">Attaching…</span>}
      {error && (
        <span className="attach-error" role="alert" data-testid="attach-error">
          {error}
        </span>
      )}
    </div>
  );
}
