/**
 * dialog, shell, safeStorage, Menu and clipboard of the electron stub (Electron 41 docs). Nothing here opens a
 * browser, a native dialog or the OS keychain: calls are recorded in the stub's state and answered from it.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { app } from './app.mjs';
import { state } from './state.mjs';

export const dialog = {
  /** ([window], options) → { canceled, filePaths }; answers are queued by the test (default: cancelled). */
  async showOpenDialog(windowOrOptions, maybeOptions) {
    const options = maybeOptions ?? windowOrOptions;
    state.openDialogs.push(options);
    return state.openDialogAnswers.shift() ?? { canceled: true, filePaths: [] };
  },
  async showSaveDialog() {
    return { canceled: true, filePath: '' };
  },
  async showMessageBox() {
    return { response: 0, checkboxChecked: false };
  },
  showErrorBox(title, content) {
    state.errorBoxes.push({ title, content });
    process.stderr.write(`[electron stub] error box: ${title}: ${content}\n`);
  },
};

export const shell = {
  async openExternal(url) {
    state.openedExternal.push(url);
  },
  async openPath(path) {
    state.openedPaths.push(path);
    return '';
  },
  showItemInFolder(path) {
    state.openedPaths.push(path);
  },
  async trashItem() {},
  beep() {},
};

/**
 * safeStorage: available once the app is ready (docs: on Linux, not before 'ready'). The stub encrypts for real
 * (AES-256-GCM under a fixed stub key, with Chromium's "v11" prefix on Linux), so nothing lands in clear text and a
 * second process can decrypt.
 */
const KEY = createHash('sha256').update('agentdesk electron stub safeStorage key').digest();
const PREFIX = Buffer.from('v11');

export const safeStorage = {
  isEncryptionAvailable() {
    return app.isReady() && state.encryptionAvailable;
  },
  isAsyncEncryptionAvailable() {
    return Promise.resolve(this.isEncryptionAvailable());
  },
  getSelectedStorageBackend() {
    if (process.platform !== 'linux') throw new TypeError('safeStorage.getSelectedStorageBackend is not a function');
    return state.storageBackend;
  },
  setUsePlainTextEncryption() {},
  encryptString(plainText) {
    if (typeof plainText !== 'string') throw new TypeError('Expected the first argument of encryptString() to be a string');
    if (!this.isEncryptionAvailable()) throw new Error('Error while encrypting the text provided to safeStorage.encryptString. Encryption is not available.');
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', KEY, iv);
    const body = Buffer.concat([cipher.update(plainText, 'utf8'), cipher.final()]);
    return Buffer.concat([PREFIX, iv, cipher.getAuthTag(), body]);
  },
  decryptString(encrypted) {
    if (!Buffer.isBuffer(encrypted)) throw new TypeError('Expected the first argument of decryptString() to be a buffer');
    if (!this.isEncryptionAvailable()) throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString. Decryption is not available.');
    try {
      if (!encrypted.subarray(0, 3).equals(PREFIX)) throw new Error('prefix');
      const iv = encrypted.subarray(3, 15);
      const tag = encrypted.subarray(15, 31);
      const decipher = createDecipheriv('aes-256-gcm', KEY, iv);
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(encrypted.subarray(31)), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
    }
  },
};

const ROLES = new Set(['undo', 'redo', 'cut', 'copy', 'paste', 'pasteAndMatchStyle', 'delete', 'selectAll', 'reload', 'forceReload', 'toggleDevTools', 'resetZoom', 'zoomIn', 'zoomOut', 'toggleSpellChecker', 'togglefullscreen', 'window', 'minimize', 'close', 'help', 'about', 'services', 'hide', 'hideOthers', 'unhide', 'quit', 'startSpeaking', 'stopSpeaking', 'zoom', 'front', 'appMenu', 'fileMenu', 'editMenu', 'viewMenu', 'shareMenu', 'recentDocuments', 'toggleTabBar', 'selectNextTab', 'selectPreviousTab', 'showAllTabs', 'mergeAllWindows', 'clearRecentDocuments', 'moveTabToNewWindow', 'windowMenu']);

export class MenuItem {
  constructor(options) {
    if (options.label === undefined && options.role === undefined && options.type === undefined) {
      throw new Error('Invalid template for MenuItem: must have at least one of label, role or type');
    }
    if (options.role !== undefined && !ROLES.has(options.role)) throw new Error(`Invalid role: ${options.role}`);
    Object.assign(this, { type: options.submenu ? 'submenu' : 'normal', enabled: true, visible: true }, options);
    if (Array.isArray(options.submenu)) this.submenu = Menu.buildFromTemplate(options.submenu);
  }
}

export class Menu {
  items = [];
  static buildFromTemplate(template) {
    if (!Array.isArray(template)) throw new TypeError('Invalid template for Menu: Menu template must be an array');
    const menu = new Menu();
    for (const item of template) menu.append(item instanceof MenuItem ? item : new MenuItem(item));
    return menu;
  }
  static setApplicationMenu(menu) {
    state.applicationMenu = menu;
  }
  static getApplicationMenu() {
    return state.applicationMenu ?? null;
  }
  append(item) {
    this.items.push(item);
  }
  popup() {}
  closePopup() {}
}

export const clipboard = {
  writeText(text) {
    state.clipboardText = String(text);
  },
  readText() {
    return state.clipboardText;
  },
  clear() {
    state.clipboardText = '';
  },
};

export const nativeTheme = { shouldUseDarkColors: false, themeSource: 'system', on() {}, off() {} };
