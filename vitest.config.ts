import { defineConfig } from "vitest/config";

// Workspace packages resolve to their TypeScript sources through the "gatehouse-source"
// export condition, so tests never run against a stale build.
export default defineConfig({
  resolve: { conditions: ["gatehouse-source"] },
  ssr: { resolve: { conditions: ["gatehouse-source"] } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "tests/**/*.test.ts"],
    testTimeout: 20_000,
    // A poll that succeeds returns at once; the long default only helps a loaded CI machine,
    // where a browser's page or a passkey ceremony can take seconds to answer.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 30_000,
  },
});
