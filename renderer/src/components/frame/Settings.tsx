import { useEffect, useRef } from 'react';
import { showView, useSessions } from '../../store/sessions-store.js';
import { loadSettings, useSettings } from '../../store/settings-store.js';
import { CheckpointsUsage } from '../../checkpoints/CheckpointsUsage.js';
import { McpSection } from '../../mcp/McpSection.js';
import { UsageSection } from '../../usage/UsageSection.js';
import { AppearanceSection } from './settings/AppearanceSection.js';
import { DefaultsSection } from './settings/DefaultsSection.js';
import { FolderSection } from './settings/FolderSection.js';
import { KeysSection } from './settings/KeysSection.js';
import { ProvidersSection } from './settings/ProvidersSection.js';

/** D4: keys, folder, providers, defaults, MCP, appearance — reachable from the top bar, the menu, the palette and Ctrl/Cmd+,. */
export function Settings() {
  const section = useSessions((s) => s.settingsSection);
  const view = useSettings((s) => s.view);
  const root = useRef<HTMLDivElement>(null);
  useEffect(() => {
    void loadSettings();
  }, []);
  useEffect(() => {
    if (section) root.current?.querySelector(`#settings-${section}`)?.scrollIntoView({ block: 'start' });
  }, [section, view !== undefined]);
  return (
    <main className="settings" ref={root} aria-label="Settings">
      <div className="settings-head">
        <h1>Settings</h1>
        <button type="button" className="btn" onClick={() => showView('chat')}>
          Back to chat
        </button>
      </div>
      {!view ? (
        <p className="muted">Loading…</p>
      ) : (
        <>
          <KeysSection />
          <FolderSection />
          <ProvidersSection />
          <DefaultsSection />
          <CheckpointsUsage />
          <UsageSection />
          <McpSection />
          <AppearanceSection />
          <p className="muted settings-file">Stored in {view.file}. Keys are never stored there.</p>
        </>
      )}
    </main>
  );
}
