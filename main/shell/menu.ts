/** The application menu: File › New Chat, Open Folder…, Settings…; plus the standard edit/view/window roles. */
import { Menu, type MenuItemConstructorOptions } from 'electron';
import type { MenuCommand } from '../../preload/contract.js';

export function installMenu(send: (command: MenuCommand) => void, isDev: boolean): void {
  const isMac = process.platform === 'darwin';
  const settings: MenuItemConstructorOptions = { label: 'Settings…', accelerator: 'CmdOrCtrl+,', click: () => send('settings') };
  const template: MenuItemConstructorOptions[] = [
    ...(isMac
      ? [{ label: 'AgentDesk', submenu: [{ role: 'about' as const }, { type: 'separator' as const }, settings, { type: 'separator' as const }, { role: 'quit' as const }] }]
      : []),
    {
      label: 'File',
      submenu: [
        { label: 'New Chat', accelerator: 'CmdOrCtrl+N', click: () => send('new-chat') },
        { label: 'Open Folder…', accelerator: 'CmdOrCtrl+O', click: () => send('open-folder') },
        ...(isMac ? [] : [{ type: 'separator' as const }, settings]),
        { type: 'separator' },
        isMac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        { role: 'reload' },
        ...(isDev ? [{ role: 'toggleDevTools' as const }] : []),
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}
