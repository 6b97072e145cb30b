import { dismissError, useChat } from '../store/chat-store.js';

export function ErrorBanner() {
  const error = useChat((s) => s.error);
  if (!error) return null;
  return (
    <div className="banner-error" role="alert">
      <span>{error}</span>
      <button type="button" className="btn btn-quiet" onClick={dismissError} aria-label="Dismiss error">
        ×
      </button>
    </div>
  );
}
