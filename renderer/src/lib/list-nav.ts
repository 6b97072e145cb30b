/**
 * The message list's navigation, for the parts of the window that move it (find-in-chat, Ctrl+Home / Ctrl+End):
 * MessageList registers itself while it is mounted.
 */
export interface ListNav {
  /** Brings the turn with this id into view (wherever it stands by then: the earlier part may still be coming in). */
  toTurn(turnId: string): void;
  /** The conversation's first message / its end. */
  toStart(): void;
  toEnd(): void;
}

let current: ListNav | undefined;
export const setListNav = (nav: ListNav | undefined): void => {
  current = nav;
};
export const listNav = (): ListNav | undefined => current;
