import { defineConfig } from "vitest/config";

// Three projects: fast unit tests; integration tests against real PostgreSQL, Redis and an
// S3 server started by test/harness; cluster tests against a real kube-apiserver.
export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["{api,operator,runner,crds}/**/*.test.ts", "test/docs/*.test.ts"],
          testTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: "integration",
          globalSetup: ["test/harness/global-setup.ts"],
          include: ["test/integration/**/*.test.ts", "test/e2e/**/*.test.ts"],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: "cluster",
          globalSetup: ["test/harness/global-setup.ts"],
          include: ["test/cluster/**/*.test.ts"],
          testTimeout: 600_000,
          hookTimeout: 900_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
