import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, "../..");

/** The example lives in the repository's npm workspace: its packages are hoisted to the root. */
export default {
  turbopack: { root: repo },
  outputFileTracingRoot: repo,
  // Loaded from node_modules at run time rather than bundled: PGlite reads its WebAssembly and
  // data files next to its own code; pg and nodemailer use Node.js built-ins throughout.
  serverExternalPackages: ["@electric-sql/pglite", "pg", "nodemailer"],
};
