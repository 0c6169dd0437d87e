// @ts-check
/**
 * Mutation testing of the security-critical modules. Not part of `npm test`: run
 * `npm run mutate` (all modules) or `npm run mutate -- --mutate packages/core/src/lib/csrf.ts`
 * (one). See mutation/README.md for the scores and mutation/equivalent-mutants.md for the
 * reviewed survivors.
 *
 * @type {import("@stryker-mutator/api/core").PartialStrykerOptions}
 */
export default {
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner", "@stryker-mutator/typescript-checker"],
  // A mutant that does not compile is no behaviour a test could miss: the TypeScript checker
  // drops it before any test runs (it counts as a compile error, not as survived).
  checkers: ["typescript"],
  tsconfigFile: "packages/core/tsconfig.build.json",
  vitest: { configFile: "mutation/vitest.config.ts", related: false },
  mutate: [
    "packages/core/src/lib/csrf.ts",
    "packages/core/src/lib/callbacks.ts",
    "packages/core/src/lib/crypto/jwe.ts",
    "packages/core/src/lib/crypto/node.ts",
    "packages/core/src/lib/crypto/encoding.ts",
    "packages/core/src/lib/session/jwt.ts",
    "packages/core/src/lib/users.ts",
    "packages/core/src/lib/checks.ts",
    "packages/core/src/lib/email/normalize.ts",
    "packages/core/src/lib/cookies.ts",
    "packages/core/src/lib/request.ts",
    "packages/core/src/lib/features/federated-logout/backchannel-logout.ts",
    "packages/core/src/lib/client-address.ts",
    "packages/core/src/lib/features/sessions/revocation.ts",
    "packages/core/src/lib/features/rate-limit/index.ts",
    "packages/core/src/lib/features/rate-limit/memory.ts",
    "packages/core/src/lib/features/rate-limit/streaks.ts",
    "packages/core/src/lib/features/rate-limit/device.ts",
    "packages/core/src/lib/sign-in/email/code.ts",
    "packages/core/src/lib/sign-in/email/code-callback.ts",
    "packages/core/src/lib/actions/signout.ts",
    "packages/core/src/lib/features/federated-logout/sign-out.ts",
    "packages/core/src/lib/features/rate-limit/attempt.ts",
    "packages/core/src/lib/features/sessions/address-proof.ts",
    "packages/core/src/lib/session/store-deadline.ts",
    "packages/core/src/lib/features/rate-limit/in-flight.ts",
    "packages/core/src/lib/features/sessions/actions.ts",
  ],
  coverageAnalysis: "perTest",
  // The machine is shared: one or two test runners, not one per core.
  concurrency: 2,
  timeoutMS: 20_000,
  ignorePatterns: [
    "bench",
    "docs",
    "examples",
    "tests",
    "packages/solid-start/test",
    "packages/*/dist",
    "packages/mikro-orm-adapter/test",
    "packages/pg-adapter/test",
    "packages/redis-adapter/test",
    "mutation/reports",
    // Scratch folders other suites create and delete while a run copies the repository.
    ".tmp",
    "*.tsbuildinfo",
  ],
  // Re-runs test only the mutants whose code or covering tests changed since the last run.
  incremental: true,
  incrementalFile: "mutation/reports/stryker-incremental.json",
  tempDirName: "mutation/.stryker-tmp",
  cleanTempDir: true,
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "mutation/reports/mutation.html" },
  jsonReporter: { fileName: "mutation/reports/mutation.json" },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  thresholds: { high: 90, low: 80, break: null },
};
