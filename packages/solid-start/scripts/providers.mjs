#!/usr/bin/env node
// `npm run providers -w @gatehousejs/solid-start`: writes src/providers/<id>.ts for every provider
// module of @gatehousejs/core (packages/core/src/providers/<id>.ts), each re-exporting core's, so
// that `@gatehousejs/solid-start/providers/<id>` is what `@gatehousejs/core/providers/<id>` is.
// A package's "./providers/*" export cannot point into another package: these files are the
// bridge. test/providers.test.ts fails when they differ from what this script writes.
//
//   node scripts/providers.mjs [--check]
//
// --check: write nothing; list the files that are missing, stale or left over, exit 1 if any.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const pkgDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const coreProviders = join(pkgDir, "../core/src/providers");
const ours = join(pkgDir, "src/providers");

/** The ids of core's providers: its `src/providers/<id>.ts` modules (not `_shared/`). */
export function coreProviderIds() {
  return readdirSync(coreProviders, { withFileTypes: true })
    .filter((entry) => entry.isFile() && /^[a-z0-9-]+\.ts$/.test(entry.name))
    .map((entry) => entry.name.slice(0, -".ts".length))
    .sort();
}

/** The source of `src/providers/<id>.ts`. */
export function providerModule(id) {
  const specifier = `@gatehousejs/core/providers/${id}`;
  return [
    "// Written by scripts/providers.mjs: do not edit (run `node scripts/providers.mjs`).",
    "/**",
    ` * The \`${id}\` provider of \`@gatehousejs/core\`, for SolidStart apps: the same module.`,
    " * @module",
    " */",
    `export * from "${specifier}";`,
    `export { default } from "${specifier}";`,
    "",
  ].join("\n");
}

/** What differs between src/providers/ and core's providers: `{ missing, stale, extra }` ids. */
export function providerDrift() {
  const ids = coreProviderIds();
  const present = readdirSync(ours)
    .filter((name) => name.endsWith(".ts"))
    .map((name) => name.slice(0, -".ts".length));
  const missing = ids.filter((id) => !present.includes(id));
  const stale = ids.filter(
    (id) =>
      present.includes(id) && readFileSync(join(ours, `${id}.ts`), "utf8") !== providerModule(id),
  );
  const extra = present.filter((id) => !ids.includes(id));
  return { missing, stale, extra };
}

/** Writes every provider module and removes the ones core no longer has. */
export function writeProviders() {
  const { extra } = providerDrift();
  for (const id of coreProviderIds()) {
    writeFileSync(join(ours, `${id}.ts`), providerModule(id));
  }
  for (const id of extra) {
    const file = join(ours, `${id}.ts`);
    if (existsSync(file)) rmSync(file);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--check")) {
    const drift = providerDrift();
    const wrong = [...drift.missing, ...drift.stale, ...drift.extra];
    if (wrong.length > 0) {
      console.error(`src/providers differs from core's providers: ${JSON.stringify(drift)}`);
      process.exit(1);
    }
  } else {
    writeProviders();
  }
}
