/** The native folder picker of the desktop app (Settings › Folder, File › Open Folder…, the top bar's folder name). */
import { dialog, type BrowserWindow } from 'electron';

/** Shows the native folder picker; undefined when cancelled. */
export async function pickFolder(parent?: BrowserWindow): Promise<string | undefined> {
  const options = { title: 'Open Folder', properties: ['openDirectory', 'createDirectory'] as ('openDirectory' | 'createDirectory')[] };
  const result = parent && !parent.isDestroyed() ? await dialog.showOpenDialog(parent, options) : await dialog.showOpenDialog(options);
  return result.canceled ? undefined : result.filePaths[0];
}
