/**
 * Library settings that keep the page inside its Content-Security-Policy; imported first by
 * main.tsx, so they hold before any library code runs.
 *
 * - zod compiles object parsers with `new Function` unless told not to; it catches the refusal,
 *   but the browser still records a CSP violation on every page. `jitless` skips the attempt.
 * - Cytoscape adds a `<style>` element (`.__________cytoscape_container { position: relative }`)
 *   to the head unless an element with the id `__________cytoscape_stylesheet` is already there;
 *   the policy refuses that element. The rule is in styles.css, and this marker stands in.
 */
import { z } from "zod";

z.config({ jitless: true });

const CYTOSCAPE_STYLESHEET = "__________cytoscape_stylesheet";
if (!document.getElementById(CYTOSCAPE_STYLESHEET)) {
  const marker = document.createElement("meta");
  marker.id = CYTOSCAPE_STYLESHEET;
  marker.name = "cytoscape-stylesheet";
  marker.content = "in styles.css";
  document.head.append(marker);
}
