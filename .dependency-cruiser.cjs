/**
 * The import rules of the core package (docs/architecture.md), checked in CI by
 * `npm run architecture` beside `npm run cycles`.
 */
/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "No import cycles, type-only imports included.",
      from: { path: "^packages/core/src/" },
      to: { circular: true },
    },
    {
      name: "kernel-imports-no-feature",
      severity: "error",
      comment:
        "The kernel (packages/core/src/lib outside features/ and sign-in/) never imports a feature or a sign-in method: features plug in through the seam (lib/feature.ts).",
      from: {
        path: "^packages/core/src/lib/",
        pathNot: "^packages/core/src/lib/(features|sign-in)/",
      },
      to: { path: "^packages/core/src/lib/(features|sign-in)/" },
    },
    {
      name: "nothing-imports-the-entry",
      severity: "error",
      comment:
        "Only the package's entry modules (src/*.ts) import the composition root and each other; the kernel, features and methods never import up to them.",
      from: { path: "^packages/core/src/lib/" },
      to: { path: "^packages/core/src/[^/]+\\.ts$" },
    },
    {
      name: "features-import-no-method",
      severity: "error",
      comment:
        "A feature does not import a sign-in method; methods may use features (rate limits).",
      from: { path: "^packages/core/src/lib/features/" },
      to: { path: "^packages/core/src/lib/sign-in/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(dist|test|node_modules)/" },
    tsPreCompilationDeps: true,
    // Sources import each other as `./x.js`, which is `./x.ts` before the build: TypeScript's
    // own resolution (through this tsconfig) maps them.
    tsConfig: { fileName: "tsconfig.json" },
  },
};
