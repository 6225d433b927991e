/**
 * Which methods each registered path answers, so that a request with an undeclared method on a
 * known path gets 405 with Allow instead of 404. Fastify's router answers "not found" for both;
 * route patterns here are Fastify's (`:param` segments, a trailing `*`).
 */
interface Pattern {
  regex: RegExp;
  methods: Set<string>;
}

const escape = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&");

export class RouteMethods {
  private readonly patterns = new Map<string, Pattern>();

  add(url: string, method: string | string[]): void {
    const key = url.length > 1 ? url.replace(/\/+$/, "") : url;
    let pattern = this.patterns.get(key);
    if (!pattern) {
      const source = key
        .split("/")
        .map((seg) => (seg.startsWith(":") ? "[^/]+" : seg === "*" ? ".*" : escape(seg)))
        .join("/");
      pattern = { regex: new RegExp(`^${source}/?$`), methods: new Set() };
      this.patterns.set(key, pattern);
    }
    for (const m of Array.isArray(method) ? method : [method]) pattern.methods.add(m.toUpperCase());
  }

  /** The methods declared for the request URL's path, sorted; empty for an unknown path. */
  allowed(url: string): string[] {
    const path = url.split("?")[0] ?? "";
    const out = new Set<string>();
    for (const p of this.patterns.values()) if (p.regex.test(path)) for (const m of p.methods) out.add(m);
    return [...out].sort();
  }
}
