import type { AttachmentDto } from '../../../preload/contract.js';
import { AttachmentChip, Thumb } from './AttachmentTray.js';

/** What a sent message carried: images large enough to see, files and mentions as chips. */
export function MessageAttachments({ items }: { items?: AttachmentDto[] }) {
  if (!items?.length) return null;
  const images = items.filter((a) => a.type === 'image');
  const files = items.filter((a) => a.type !== 'image');
  return (
    <div className="msg-attachments" data-testid="message-attachments">
      {images.map((a, i) => (
        <Thumb key={`${a.id}-${i}`} id={a.id} name={a.name} className="msg-image" />
      ))}
      {files.map((a, i) => (
        <AttachmentChip key={`${a.id}-${i}`} a={a} />
      ))}
    </div>
  );
}
