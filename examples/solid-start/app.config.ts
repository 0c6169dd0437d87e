import { defineConfig } from "@solidjs/start/config";

export default defineConfig({
  middleware: "src/middleware.ts",
  server: {
    preset: "node-server",
    // Opens the database (and checks the secret) when the server starts, not on the first request.
    plugins: ["./src/server/startup.ts"],
  },
});
