/**
 * GET /webauthn-options/<provider>: the options of a passkey ceremony, with its challenge. The
 * provider's method answers (./declaration.ts): the code is the provider's, the route the
 * protocol's.
 */
import { InvalidProvider } from "../../errors.js";
import { methodFor } from "../../feature.js";
import { defineRoute } from "../../routes/define.js";

export default defineRoute({
  name: "webauthn-options",
  methods: ["GET"],
  provider: "required",
  providerTypes: ["webauthn"],
  csrf: "none",
  calledByScripts: true,
  load: () => async (ctx) => {
    const provider = ctx.requireProvider();
    const answer = (await methodFor(provider))?.routes?.["webauthn-options"];
    if (!answer)
      throw new InvalidProvider("This provider's sign-in method has no ceremony options");
    return answer(ctx, provider);
  },
});
