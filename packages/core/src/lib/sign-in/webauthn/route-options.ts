/** GET /webauthn-options/<provider>: the options of a passkey ceremony, with its challenge. */
import { defineRoute } from "../../routes/define.js";

export default defineRoute({
  name: "webauthn-options",
  methods: ["GET"],
  provider: "required",
  csrf: "none",
  load: async () => (await import("./options.js")).webauthnOptions,
});
