#!/usr/bin/env node
// `node scripts/bundle.mjs` (run by `npm run build`, after `tsc -b` has written the declarations):
// writes this package's JavaScript into dist/ the way core's is written (one module per export,
// shared code in dist/chunks/, every package import left to the app, source maps into ../src).
// The rules are core's: packages/core/scripts/bundle.mjs.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundlePackage } from "../../core/scripts/bundle.mjs";

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const { files, entries } = await bundlePackage(pkgDir);
const chunks = files.filter((f) => f.endsWith(".js") && f.includes("/dist/chunks/"));
console.log(`packages/solid-start: ${entries.length} entries and ${chunks.length} chunks in dist/`);
