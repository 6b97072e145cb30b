/** Settings › Workspace folder: the native dialog in the app, a checked path in the browser; recent folders. */
import { useState } from 'react';
import { setWorkspace, useSettings } from '../../../store/settings-store.js';
import { folderName } from '../format.js';
import { Note } from './Note.js';

export function FolderSection() {
  const view = useSettings((s) => s.view)!;
  const [path, setPath] = useState('');
  return (
    <section id="settings-folder" className="settings-section" aria-labelledby="h-folder">
      <h2 id="h-folder">Workspace folder</h2>
      <p>
        The assistant works in <code data-testid="current-folder">{view.workspace}</code>. A change applies to new runs; a running reply
        finishes where it started.
      </p>
      {view.folderPicker === 'dialog' ? (
        <button type="button" className="btn btn-primary" onClick={() => void setWorkspace({ dialog: true })}>
          Choose folder…
        </button>
      ) : (
        <form
          className="folder-form"
          onSubmit={(e) => {
            e.preventDefault();
            void setWorkspace({ path }).then((ok) => ok && setPath(''));
          }}
        >
          <input aria-label="Folder path" placeholder="/home/me/project" value={path} onChange={(e) => setPath(e.target.value)} />
          <button type="submit" className="btn btn-primary" disabled={path.trim() === ''}>
            Use folder
          </button>
        </form>
      )}
      {view.recentWorkspaces.length > 0 && (
        <ul className="recent-folders" aria-label="Recent folders">
          {view.recentWorkspaces.map((f) => (
            <li key={f}>
              <button type="button" className="link" title={f} disabled={f === view.workspace} onClick={() => void setWorkspace({ path: f })}>
                {folderName(f)} <span className="muted">{f}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <Note section="folder" />
    </section>
  );
}
