// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";

/**
 * Import boundaries: what each workspace package may import (see each folder's README).
 * Packages reach each other only by name (`@causeway/contract`, `@causeway/runner/<entry>`), never
 * by a relative path that climbs out of the package; tests may also use the shared test code in test/.
 */
const climbingInto = (folders) => ({
  regex: `^(\\.\\./)+(${folders.join("|")})/`,
  message: "Import another package by its name (@causeway/...), not by a relative path out of this package.",
});
const packages = (names) => ({
  group: names.flatMap((n) => [n, `${n}/*`]),
  message: "This package may not import that one (see its README, 'What it may import').",
});
const libraries = (names, why) => ({ group: names, message: why });
const HEAVY = [
  "h5wasm",
  "@napi-rs/canvas",
  "elkjs",
  "@aws-sdk/*",
  "@electric-sql/*",
  "pg",
  "ioredis",
  "fastify",
  "@fastify/*",
];

/** Boundary rules of one package: `product` for its sources, `tests` adds test/ to what test files may reach. */
function boundaries(folder, { otherFolders, forbiddenPackages, forbiddenLibraries = [] }) {
  const restricted = (folders) => [
    "error",
    {
      patterns: [
        climbingInto(folders),
        packages(forbiddenPackages),
        ...(forbiddenLibraries.length
          ? [libraries(forbiddenLibraries, `Not a dependency of ${folder}/.`)]
          : []),
      ],
    },
  ];
  return [
    {
      files: [`${folder}/**/*.ts`],
      rules: { "no-restricted-imports": restricted([...otherFolders, "test"]) },
    },
    {
      // Test code may use the shared builders, harness and data locations in test/.
      files: [`${folder}/**/*.test.ts`, `${folder}/**/fixtures/**/*.ts`, `${folder}/validation/**/*.ts`],
      rules: { "no-restricted-imports": restricted(otherFolders) },
    },
  ];
}

export default tseslint.config(
  { ignores: ["node_modules/", "charts/", ".causeway/", "coverage/", "api/web/dist/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
    },
  },
  { files: ["**/*.js", "**/*.mjs"], extends: [tseslint.configs.disableTypeChecked] },
  ...boundaries("crds", {
    otherFolders: ["api", "operator", "runner"],
    forbiddenPackages: ["@causeway/api", "@causeway/operator", "@causeway/runner"],
    forbiddenLibraries: [...HEAVY, "@kubernetes/client-node/dist/*"],
  }),
  ...boundaries("runner", {
    otherFolders: ["api", "operator", "crds"],
    forbiddenPackages: ["@causeway/api", "@causeway/operator"],
    forbiddenLibraries: [
      "@electric-sql/*",
      "pg",
      "ioredis",
      "fastify",
      "@fastify/*",
      "@kubernetes/client-node",
    ],
  }),
  ...boundaries("operator", {
    otherFolders: ["api", "runner", "crds"],
    forbiddenPackages: ["@causeway/api", "@causeway/runner"],
    forbiddenLibraries: HEAVY,
  }),
  ...boundaries("api", {
    otherFolders: ["operator", "runner", "crds"],
    forbiddenPackages: ["@causeway/operator"],
  }),
  {
    // The web app runs in a browser: the API's schemas and SDK pieces, the contract (its browser
    // entry, see api/web/vite.config.ts) and the runner's pure graph modules only.
    files: ["api/web/src/**/*.ts", "api/web/src/**/*.tsx"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            climbingInto(["operator", "runner", "crds", "test", "src"]),
            packages(["@causeway/operator"]),
            {
              group: [
                "@causeway/runner/*",
                "!@causeway/runner/graph",
                "!@causeway/runner/graph/*",
                "@causeway/runner/graph/index*",
              ],
              message:
                "The web app may import the runner's pure graph modules only (graph/select, layers, inputs, style).",
            },
            libraries([...HEAVY, "node:*", "commander", "pino", "prom-client"], "Not for a browser bundle."),
          ],
          paths: [
            {
              name: "@causeway/api/client",
              message:
                "The SDK entry loads node: modules; import its browser-safe parts (client/sdk, client/errors, client/pacing).",
            },
          ],
        },
      ],
    },
  },
);
