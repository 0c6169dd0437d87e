/** POST /passkeys/remove (`credentialID`, JSON or form, CSRF-checked): see ./actions.ts. */
import { defineRoute } from "../../routes/define.js";

export default defineRoute({
  name: "passkeys/remove",
  methods: ["POST"],
  provider: "no",
  csrf: "post",
  jsonErrors: true,
  load: async () => (await import("./actions.js")).removePasskeyAction,
});
