/**
 * A SolidStart 2 app: Vite 8 with the SolidStart plugin and Nitro 3 for the Node server.
 *
 * `@gatehousejs/*` is not a dependency of this fixture: it resolves, as Node resolves any package,
 * by walking up to the repository's node_modules, where npm's workspace links point at
 * packages/*. Their "default" export condition is the built dist (the repository's vitest
 * "gatehouse-source" condition is not set here), so the app runs what `npm run build` made.
 * The dist files import solid-js from the repository's copy; `dedupe` makes them share this
 * app's copy, as an app with one installed solid-js would.
 */
import { solidStart } from "@solidjs/start/config";
import { nitro } from "nitro/vite";
import { defineConfig } from "vite";

export default defineConfig({
  plugins: [solidStart({ middleware: "./src/middleware.ts" }), nitro()],
  resolve: { dedupe: ["solid-js", "@solidjs/router"] },
  // A Node server (.output/server/index.mjs), whatever hosting platform the environment names.
  nitro: { preset: "node-server" },
});
