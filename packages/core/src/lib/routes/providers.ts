/** GET /providers: the configured providers and their URLs, as JSON. */
import { defineRoute } from "./define.js";

export default defineRoute({
  name: "providers",
  methods: ["GET"],
  provider: "no",
  csrf: "none",
  load: async () => (await import("../actions/providers.js")).providers,
});
