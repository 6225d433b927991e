/**
 * Entry of the embedded executor's runner host (forked by api/src/dispatch/runner-pool.ts): the
 * pool's slots run as worker threads of this process (pool-thread.ts) over one shared copy of
 * each model version (thread-host.ts).
 */
import { CACHE_ENV } from "@causeway/contract";
import { SharedBundles } from "../model/shared-bundle.ts";
import { storeFromEnv } from "./store-from-env.ts";
import { runThreadHost } from "./thread-host.ts";

runThreadHost({
  threadEntry: new URL("./pool-thread.ts", import.meta.url),
  bundles: new SharedBundles(storeFromEnv(process.env), { cacheDir: process.env[CACHE_ENV.runner] }),
});
