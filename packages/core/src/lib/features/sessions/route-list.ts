/** GET /sessions: the signed-in user's sessions (a Gatehouse addition, docs/sessions.md). */
import { defineRoute } from "../../routes/define.js";

export default defineRoute({
  name: "sessions",
  methods: ["GET"],
  provider: "no",
  csrf: "none",
  load: async () => (await import("./actions.js")).listSessionsAction,
});
