import { Composer } from './Composer.js';
import { ErrorBanner } from './ErrorBanner.js';
import { MessageList } from './MessageList.js';

export function Chat() {
  return (
    <main className="chat">
      <MessageList />
      <div className="composer-wrap">
        <ErrorBanner />
        <Composer />
      </div>
    </main>
  );
}
