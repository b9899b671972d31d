/**
 * A modal dialog on the native `<dialog>`: focus moves into it and back, Escape closes it, and the
 * rest of the page is inert while it is open.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export function Dialog({
  title,
  onClose,
  children,
}: {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby="dialog-title" onClose={onClose}>
      <header class="row">
        <h2 id="dialog-title">{title}</h2>
        <button type="button" class="ghost" onClick={onClose} aria-label="Close">
          ×
        </button>
      </header>
      {children}
    </dialog>
  );
}
