import { memo } from 'react';
import type { UserTurn } from '../store/types.js';
import { RestoreAction } from '../checkpoints/RestoreAction.js';
import { MessageAttachments } from '../attachments/MessageAttachments.js';

export const UserMessage = memo(function UserMessage({ turn }: { turn: UserTurn }) {
  return (
    <article className="msg msg-user" data-testid="user-message" data-pending={turn.pending && !turn.runId ? 'true' : undefined}>
      <MessageAttachments items={turn.attachments} />
      <div className="msg-user-bubble">{turn.text}</div>
      <RestoreAction turn={turn} />
    </article>
  );
});
