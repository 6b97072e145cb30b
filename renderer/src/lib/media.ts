/** A CSS media query as React state (the window's width decides the sidebar's behaviour). */
import { useSyncExternalStore } from 'react';

export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const mq = globalThis.matchMedia?.(query);
      mq?.addEventListener('change', onChange);
      return () => mq?.removeEventListener('change', onChange);
    },
    () => globalThis.matchMedia?.(query).matches ?? false,
  );
}

/** Below this width the sidebar folds away by itself and opens over the chat (issue 18 item 17). */
export const NARROW_QUERY = '(max-width: 800px)';
export const useNarrow = (): boolean => useMediaQuery(NARROW_QUERY);
