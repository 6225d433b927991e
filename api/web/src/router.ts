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
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.pathname, location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.pathname, location.hash));
    window.addEventListener("popstate", update);
    window.addEventListener("causeway:navigate", update);
    return () => {
      window.removeEventListener("popstate", update);
      window.removeEventListener("causeway:navigate", update);
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
