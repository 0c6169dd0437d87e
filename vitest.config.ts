import { defineConfig } from "vitest/config";

// Workspace packages resolve to their TypeScript sources through the "gatehouse-source"
// export condition, so tests never run against a stale build.
export default defineConfig({
  resolve: { conditions: ["gatehouse-source"] },
  ssr: { resolve: { conditions: ["gatehouse-source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "tests/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
