/**
 * Email sign-in (docs/email.md): POST /signin/<id> mails a link (and a code), GET /verify-request
 * says so, and the callback redeems the link or the code.
 */
import type { Feature } from "../../feature.js";
import verifyRequest from "./route-verify-request.js";
import type { EmailInternalProvider } from "./start.js";

export const emailMethod = {
  name: "email",
  routes: [verifyRequest],
  methods: [
    {
      types: ["email"],
      load: async () => {
        const [{ emailSignIn }, { emailCallback }, { limitClient }] = await Promise.all([
          import("./start.js"),
          import("./callback.js"),
          import("../../features/rate-limit/index.js"),
        ]);
        return {
          start: async (ctx, provider) => {
            await limitClient(ctx, "email");
            return emailSignIn(ctx, provider as EmailInternalProvider);
          },
          callback: (ctx, provider) => emailCallback(ctx, provider as EmailInternalProvider),
        };
      },
    },
  ],
} satisfies Feature;
