import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The Next.js 15 fixture: its own root (not the repository's workspace), so every module,
 * `next/*` included, resolves from this folder's node_modules. No ESLint in the build: the
 * repository lints with Biome.
 */
export default {
  outputFileTracingRoot: here,
  eslint: { ignoreDuringBuilds: true },
};
