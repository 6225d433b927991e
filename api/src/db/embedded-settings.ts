/**
 * PostgreSQL settings of the embedded database (PGlite). PGlite starts PostgreSQL with its
 * server defaults, sized for a database server of its own: 128 MB of shared buffers that fill
 * as tables are read and stay resident in the WebAssembly memory, which never shrinks. The
 * embedded database holds one user's accounts and job records (a few MB), so small buffers cost
 * nothing measurable and keep the server smaller (api/docs/memory.md has the figures), down to
 * where a smaller size no longer lowers the resident WebAssembly memory after a few jobs.
 */
import { PGlite, type PGliteOptions } from "@electric-sql/pglite";

export const EMBEDDED_PG_SETTINGS: Record<string, string> = {
  shared_buffers: "8MB",
  wal_buffers: "1MB",
  temp_buffers: "2MB",
  work_mem: "4MB",
  maintenance_work_mem: "16MB",
};

export const EMBEDDED_PG_OPTIONS: PGliteOptions = {
  startParams: [
    ...PGlite.defaultStartParams,
    ...Object.entries(EMBEDDED_PG_SETTINGS).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
  ],
};
