/** POST /two-factor/backup-codes: see ./account.ts. */
import { defineRoute } from "../../routes/define.js";

export default defineRoute({
  name: "two-factor/backup-codes",
  methods: ["POST"],
  provider: "no",
  csrf: "post",
  jsonErrors: true,
  load: async () => (await import("./account.js")).regenerateBackupCodes,
});
