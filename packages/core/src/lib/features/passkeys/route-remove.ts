/** POST /passkeys/remove (`credentialID`, JSON or form, CSRF-checked): see ./actions.ts. */
import { defineRoute } from "../../routes/define.js";
import { passkeyActions } from "./carried.js";

export default defineRoute({
  name: "passkeys/remove",
  methods: ["POST"],
  provider: "no",
  csrf: "post",
  jsonErrors: true,
  load: async () => (await passkeyActions()).removePasskeyAction,
});
