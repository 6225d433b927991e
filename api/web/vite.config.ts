/**
 * The web app's bundle: one page under /app/, hashed files in dist/assets. The contract is
 * resolved to its browser entry (no node: modules); nothing is fetched from a CDN.
 */
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "/app/",
  logLevel: "warn",
  resolve: {
    alias: [
      {
        find: /^@causeway\/contract$/,
        replacement: fileURLToPath(new URL("../../crds/src/browser.ts", import.meta.url)),
      },
    ],
  },
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "dist",
    assetsDir: "assets",
    emptyOutDir: true,
    target: "es2022",
    // One module per page load keeps the request count low; the .h5ad reader (jsfive) is its
    // own chunk, loaded only when the form reads a file.
    cssCodeSplit: false,
    modulePreload: false,
    chunkSizeWarningLimit: 2000,
  },
});
