/** GET /error: the error page, by stable error value. */
import { defineRoute } from "./define.js";

export default defineRoute({
  name: "error",
  methods: ["GET"],
  provider: "no",
  csrf: "none",
  load: async () => (await import("../actions/pages.js")).errorPage,
});
