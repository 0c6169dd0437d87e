import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** The fixture app of @gatehousejs/nextjs's tests: the repository is the workspace root. */
export default {
  turbopack: { root: resolve(here, "../../../..") },
  outputFileTracingRoot: resolve(here, "../../../.."),
};
