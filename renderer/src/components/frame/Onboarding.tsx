import { useEffect } from 'react';
import { sendMessage, useChat } from '../../store/chat-store.js';
import { showView, useSessions } from '../../store/sessions-store.js';
import { finishOnboarding, loadSettings, useSettings } from '../../store/settings-store.js';

/** First run: no key yet, an empty chat on the demo model — three steps to get going. Closed for good once dismissed. */
export function Onboarding() {
  const view = useSettings((s) => s.view);
  const empty = useChat((s) => s.turns.length === 0);
  const noKey = useChat((s) => s.models.length > 0 && !s.models.some((m) => m.hasKey && !m.demo));
  const hasDemo = useChat((s) => s.models.some((m) => m.demo));
  // not while the open chat's history is still on its way (an empty pane then is not an empty chat)
  const settled = useSessions((s) => s.loaded && !s.opening);
  useEffect(() => {
    if (!view) void loadSettings();
  }, [view]);
  if (!view || view.onboarded || !empty || !noKey || !settled) return null;
  const tryDemo = async () => {
    const demo = useChat.getState().models.find((m) => m.demo);
    if (demo) useChat.setState({ model: demo.ref });
    await sendMessage('What is in this folder?');
  };
  return (
    <section className="onboarding" aria-labelledby="onboarding-title" data-testid="onboarding">
      <h2 id="onboarding-title">Welcome to AgentDesk</h2>
      <p className="muted onboarding-intro">An assistant that reads and changes files in a folder you choose. Three steps:</p>
      <ol className="onboarding-steps">
        <li>
          <button type="button" className="btn btn-primary" onClick={() => showView('settings', 'keys')}>
            Add an API key
          </button>
          <span className="muted onboarding-step-note">Anthropic, OpenAI or another provider; it goes to your system keychain.</span>
        </li>
        <li>
          <button type="button" className="btn" onClick={() => showView('settings', 'folder')} title={view.workspace}>
            Pick a folder
          </button>
          <span className="muted onboarding-step-note">
            Now: <bdi>{view.workspace}</bdi>
          </span>
        </li>
        {hasDemo && (
          <li>
            <button type="button" className="btn" onClick={() => void tryDemo()}>
              Try the demo
            </button>
            <span className="muted onboarding-step-note">An offline model that looks around this folder — no key, no network.</span>
          </li>
        )}
      </ol>
      <button type="button" className="link" onClick={() => void finishOnboarding()}>
        Don't show this again
      </button>
    </section>
  );
}
