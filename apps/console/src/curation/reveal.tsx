import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type RefObject } from 'react';

/**
 * An add form shown on demand: one small button opens it with the focus in its input; Escape or Cancel hides it
 * and gives the focus back to the button.
 */
export function useReveal(input: RefObject<HTMLInputElement | null>): {
  readonly open: boolean;
  readonly opener: RefObject<HTMLButtonElement | null>;
  readonly show: () => void;
  readonly hide: () => void;
  /** For the form: Escape (once a suggestion list has had it) hides the form. */
  readonly onKeyDown: (event: KeyboardEvent) => void;
} {
  const [open, setOpen] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const wasOpen = useRef(false);

  useEffect(() => {
    if (open) input.current?.focus();
    else if (wasOpen.current) opener.current?.focus();
    wasOpen.current = open;
  }, [open, input]);

  const show = useCallback(() => {
    setOpen(true);
  }, []);
  const hide = useCallback(() => {
    setOpen(false);
  }, []);
  const onKeyDown = useCallback((event: KeyboardEvent) => {
    if (event.key !== 'Escape' || event.defaultPrevented) return;
    event.preventDefault();
    setOpen(false);
  }, []);
  return { open, opener, show, hide, onKeyDown };
}

/** The small button that opens an add form. */
export function RevealButton({
  opener,
  onClick,
  label,
  quiet = false,
  children,
}: {
  readonly opener: RefObject<HTMLButtonElement | null>;
  readonly onClick: () => void;
  /** An accessible name other than the text (a schema field's button names its column). */
  readonly label?: string | undefined;
  /** The quiet look (in a table row). */
  readonly quiet?: boolean;
  readonly children: string;
}) {
  return (
    <button
      type="button"
      ref={opener}
      className={quiet ? 'button button-quiet button-small curation-open' : 'button button-small curation-open'}
      aria-label={label}
      onClick={onClick}
    >
      <span aria-hidden="true">+</span> {children}
    </button>
  );
}

/** The Cancel button of an add form. */
export function CancelButton({ onClick, disabled }: { readonly onClick: () => void; readonly disabled?: boolean }) {
  return (
    <button type="button" className="button button-quiet button-small" onClick={onClick} disabled={disabled}>
      Cancel
    </button>
  );
}
