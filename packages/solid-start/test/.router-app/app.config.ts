import { defineConfig } from "@solidjs/start/config";

// Gatehouse resolves to its TypeScript sources ("gatehouse-source"), bundled into the build, so
// the test needs no `npm run build`. Vite 6 replaces its default conditions with a given list.
const conditions = ["gatehouse-source", "module", "development|production"];

export default defineConfig({
  middleware: "src/middleware.ts",
  server: { preset: "node-server" },
  vite: {
    resolve: { conditions: [...conditions, "browser"] },
    ssr: {
      noExternal: [/^@gatehousejs\//],
      resolve: {
        conditions: [...conditions, "node"],
        externalConditions: ["gatehouse-source", "node"],
      },
    },
  },
});
