/**
 * A compact list that does what clicking a picture does (a node of the causal graph, a dot of
 * the volcano), for the keyboard and screen readers: a listbox with one tab stop (roving
 * tabindex), the arrows, Home, End and typed letters move, Enter or Space chooses, Escape
 * clears. A click on an item chooses it too.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { moveTo, typeAhead } from "./keylist.ts";

export interface KeyItem {
  id: string;
  /** What the item shows. */
  label: string;
  /** Said after the label (a node's kind, a gene's fold change), shown small. */
  detail?: string;
}

export function KeyList({
  items,
  label,
  chosen,
  onChoose,
  onClear,
  testid,
}: {
  items: readonly KeyItem[];
  /** The list's accessible name. */
  label: string;
  /** The item whose detail is shown (aria-selected). */
  chosen: string | null;
  onChoose: (id: string) => void;
  onClear?: () => void;
  testid?: string;
}) {
  const list = useRef<HTMLUListElement>(null);
  const [active, setActive] = useState(0);
  const typed = useRef({ text: "", at: 0 });
  // The tab stop follows the chosen item (a node clicked in the graph), and stays in the list.
  useEffect(() => {
    const i = items.findIndex((x) => x.id === chosen);
    if (i >= 0) setActive(i);
    else if (active >= items.length) setActive(Math.max(0, items.length - 1));
  }, [chosen, items]);
  const focus = (i: number) => {
    setActive(i);
    (list.current?.children[i] as HTMLElement | undefined)?.focus();
  };
  const onKeyDown = (e: KeyboardEvent) => {
    const to = moveTo(e.key, active, items.length);
    if (to !== null) {
      e.preventDefault();
      focus(to);
      return;
    }
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      const item = items[active];
      if (item) onChoose(item.id);
      return;
    }
    if (e.key === "Escape" && onClear) {
      e.preventDefault();
      onClear();
      return;
    }
    if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) {
      const now = Date.now();
      const text = now - typed.current.at < 700 ? typed.current.text + e.key : e.key;
      typed.current = { text, at: now };
      // A repeated first letter steps to the next match; more letters refine from the current one.
      const from = text.length > 1 ? active - 1 : active;
      const to2 = typeAhead(
        items.map((x) => x.label),
        (from + items.length) % items.length,
        text,
      );
      if (to2 !== null) focus(to2);
    }
  };
  return (
    <ul
      class="keylist"
      role="listbox"
      aria-label={label}
      ref={list}
      onKeyDown={onKeyDown}
      data-testid={testid}
    >
      {items.map((item, i) => (
        <li
          key={item.id}
          role="option"
          tabIndex={i === active ? 0 : -1}
          aria-selected={item.id === chosen}
          data-id={item.id}
          onClick={() => {
            setActive(i);
            onChoose(item.id);
          }}
        >
          {item.label}
          {item.detail && <span class="keylist-detail">, {item.detail}</span>}
        </li>
      ))}
    </ul>
  );
}
