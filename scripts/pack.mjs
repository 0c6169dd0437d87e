#!/usr/bin/env node
// `npm run pack`: build every package and write its tarball (what `npm publish` would upload)
// into one folder, so another app can install Gatehouse from a clone before it is published.
//
//   node scripts/pack.mjs [--out <folder>] [--no-build]
//
// --out: where the tarballs go (default: packs/ at the repository's root).
// --no-build: the packages' dist/ folders are already current (npm test builds them first).
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The published packages, in the order an app installs them (core first). */
export const PACKAGES = [
  "core",
  "solid-start",
  "pg-adapter",
  "redis-adapter",
  "mikro-orm-adapter",
  "adapter-test",
  "hono",
  "express",
  "nextjs",
  "drizzle-adapter",
  "prisma-adapter",
  "cli",
];

/**
 * Packs every package into `out` and returns the tarballs' absolute paths, core's first.
 * Tarballs of an earlier run in that folder are replaced.
 */
export function packAll({ out = join(root, "packs"), build = true } = {}) {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  if (build) execFileSync(npm, ["run", "build"], { cwd: root, stdio: "inherit" });
  mkdirSync(out, { recursive: true });
  for (const old of readdirSync(out)) {
    if (old.startsWith("gatehousejs-") && old.endsWith(".tgz")) rmSync(join(out, old));
  }
  return PACKAGES.map((name) => {
    // --ignore-scripts: the prepack build ran above, once for all packages.
    const file = execFileSync(
      npm,
      ["pack", "--silent", "--ignore-scripts", "--pack-destination", out],
      { cwd: join(root, "packages", name), encoding: "utf8" },
    )
      .trim()
      .split("\n")
      .pop();
    return join(out, file);
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { out: { type: "string" }, "no-build": { type: "boolean", default: false } },
  });
  const out = resolve(values.out ?? join(root, "packs"));
  const tarballs = packAll({ out, build: !values["no-build"] });
  const shown = (file) => relative(process.cwd(), file) || file;
  console.log(`\nWrote ${tarballs.length} tarballs to ${shown(out)}:`);
  for (const file of tarballs) console.log(`  ${shown(file)}`);
  console.log("\nIn your app, install the ones you use, core with them, for example:");
  console.log(
    `  npm install ${tarballs
      .slice(0, 2)
      .map((file) => file)
      .join(" ")}`,
  );
}
