/** GET /passkeys: the signed-in user's passkeys, as JSON (./actions.ts). */
import { defineRoute } from "../../routes/define.js";
import { passkeyActions } from "./carried.js";

export default defineRoute({
  name: "passkeys",
  methods: ["GET"],
  provider: "no",
  csrf: "none",
  jsonErrors: true,
  load: async () => (await passkeyActions()).listPasskeysAction,
});
