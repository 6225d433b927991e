/**
 * Client-side routes under /app/ (the server answers every /app/... path with the page). Six
 * paths do not need a router library: the History API and one signal-like store.
 */
import { useEffect, useState } from "preact/hooks";

export type Route =
  | { page: "sign-in" }
  | { page: "predictions" }
  | { page: "new" }
  | { page: "prediction"; id: string }
  | { page: "how-to-read"; anchor?: string }
  | { page: "not-found" };

export function parseRoute(path: string, hash = ""): Route {
  const p = path.replace(/\/+$/, "");
  if (p === "/app" || p === "/app/predictions") return { page: "predictions" };
  if (p === "/app/sign-in") return { page: "sign-in" };
  if (p === "/app/new") return { page: "new" };
  if (p === "/app/how-to-read")
    return hash ? { page: "how-to-read", anchor: hash.slice(1) } : { page: "how-to-read" };
  const m = /^\/app\/predictions\/([0-9a-fA-F-]{36})$/.exec(p);
  if (m) return { page: "prediction", id: m[1]!.toLowerCase() };
  return { page: "not-found" };
}

export function navigate(to: string): void {
  history.pushState(null, "", to);
  window.dispatchEvent(new Event("causeway:navigate"));
  window.scrollTo(0, 0);
  focusHeading();
}

let stopWaiting: (() => void) | null = null;

/**
 * After a client-side change of page, focus moves to the new page's h1 (made focusable with
 * tabindex -1), as a page load would start a screen reader there. The h1 may come after a
 * read (a prediction's label): it is waited for, up to `waitMs`. Focus the person has since put
 * somewhere else (typing in a field) is left alone.
 */
export function focusHeading(waitMs = 10_000): void {
  stopWaiting?.();
  const main = document.getElementById("main") ?? document.body;
  const before = document.activeElement;
  const moved = () => {
    const now = document.activeElement;
    return now !== null && now !== document.body && now !== before && document.contains(now);
  };
  const tryFocus = (): boolean => {
    if (moved()) return true;
    const h1 = main.querySelector("h1");
    if (!h1) return false;
    if (!h1.hasAttribute("tabindex")) h1.setAttribute("tabindex", "-1");
    // The page keeps its scroll (the top, or an anchor the page scrolls to itself).
    h1.focus({ preventScroll: true });
    return true;
  };
  let observer: MutationObserver | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const stop = () => {
    observer?.disconnect();
    if (timer !== null) clearTimeout(timer);
    if (stopWaiting === stop) stopWaiting = null;
  };
  stopWaiting = stop;
  // The new page renders after this call returns.
  setTimeout(() => {
    if (stopWaiting !== stop) return;
    if (tryFocus()) return stop();
    observer = new MutationObserver(() => {
      if (tryFocus()) stop();
    });
    observer.observe(main, { childList: true, subtree: true });
    timer = setTimeout(stop, waitMs);
  }, 0);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.pathname, location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.pathname, location.hash));
    // Back and Forward change page like a link (a fragment link within the page fires popstate too).
    let path = location.pathname;
    const back = () => {
      update();
      if (location.pathname !== path) focusHeading();
      path = location.pathname;
    };
    const moved = () => {
      update();
      path = location.pathname;
    };
    window.addEventListener("popstate", back);
    window.addEventListener("causeway:navigate", moved);
    return () => {
      window.removeEventListener("popstate", back);
      window.removeEventListener("causeway:navigate", moved);
    };
  }, []);
  return route;
}

/** A same-origin link that changes the route without reloading the page. */
export function onLinkClick(e: MouseEvent): void {
  const a = (e.target as HTMLElement).closest("a");
  if (!a || a.target || a.hasAttribute("download") || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey)
    return;
  const href = a.getAttribute("href");
  if (!href || !href.startsWith("/app/")) return;
  e.preventDefault();
  navigate(href);
}
