/** POST /sessions/revoke: ends some of them: `{ id }`, `{ others: true }` or `{ all: true }`. */
import { defineRoute } from "../../routes/define.js";

export default defineRoute({
  name: "sessions/revoke",
  methods: ["POST"],
  provider: "no",
  csrf: "post",
  load: async () => (await import("./actions.js")).revokeSessionsAction,
});
