/** GET or POST /callback/<provider>: where each sign-in method finishes. */
import { defineRoute } from "./define.js";

export default defineRoute({
  name: "callback",
  methods: ["GET", "POST"],
  provider: "required",
  csrf: "method",
  load: async () => (await import("../actions/callback.js")).callback,
});
