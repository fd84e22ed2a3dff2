import { useEffect, useRef, type RefObject } from 'react';

/**
 * Gives the focus back to `target` (the button that opened something) when `open` turns false,
 * so the keyboard goes on from where it was rather than from the top of the page.
 */
export function useFocusOnClose(open: boolean, target: RefObject<HTMLElement | null>): void {
  const was = useRef(open);
  useEffect(() => {
    if (was.current && !open) target.current?.focus();
    was.current = open;
  }, [open, target]);
}

/** Focuses `target` as `focus` turns true, or as it mounts with it true (a card that took another's place). */
export function useFocusWhen(focus: boolean | undefined, target: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    if (focus) target.current?.focus();
  }, [focus, target]);
}
