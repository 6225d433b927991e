import { afterAll, beforeAll, inject } from "vitest";
import { createIsolatedDatabase, type IsolatedDatabase } from "./isolation.ts";
import type { KubeAccess } from "./kube/types.ts";

/**
 * Registers beforeAll/afterAll hooks that create a database of the test file's own and drop it at the
 * end. Read `.url` inside tests or hooks (it is set once beforeAll ran).
 */
export function useIsolatedDatabase(label: string): { readonly url: string } {
  let db: IsolatedDatabase | undefined;
  beforeAll(async () => {
    db = await createIsolatedDatabase(inject("databaseUrl"), label);
  });
  afterAll(async () => {
    await db?.drop();
  });
  return {
    get url(): string {
      if (db === undefined)
        throw new Error("useIsolatedDatabase: the database exists only once beforeAll has run");
      return db.url;
    },
  };
}

/** The control plane's admin access; only the `cluster` project provides it. */
export function injectKube(): KubeAccess {
  const kube = inject("kube");
  if (kube === undefined)
    throw new Error("no control plane: this test must run in the vitest project 'cluster'");
  return kube;
}
