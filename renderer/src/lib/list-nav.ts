/**
 * The message list's navigation, for the parts of the window that move it (find-in-chat, Ctrl+Home / Ctrl+End):
 * MessageList registers itself while it is mounted.
 */
export interface ListNav {
  /** Brings turn `index` (its position in the chat's turns) into view. */
  toTurn(index: number): void;
  /** The conversation's first message / its end. */
  toStart(): void;
  toEnd(): void;
}

let current: ListNav | undefined;
export const setListNav = (nav: ListNav | undefined): void => {
  current = nav;
};
export const listNav = (): ListNav | undefined => current;
