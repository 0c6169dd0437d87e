/**
 * The types an app leans on: `auth` is a Next.js proxy and middleware as it is, `auth(handler)`
 * is one too and a Route Handler, `handlers` are Route Handlers, and the server-side helpers
 * take what next-auth's take. Checked by the compiler (`npx tsc -p tsconfig.json`); the
 * assertions below only run the checks that are values.
 */
import Gatehouse, {
  type GatehouseConfig,
  type RequestWithAuth,
  type Session,
} from "@gatehousejs/nextjs";
import type { NextFetchEvent, NextProxy, NextRequest } from "next/server.js";
import { describe, expectTypeOf, it } from "vitest";
import { credentialsConfig } from "./support.js";

describe("types", () => {
  it("auth is a proxy, a middleware, a wrapper and the session reader", () => {
    const { auth, handlers, signIn, signOut } = Gatehouse(credentialsConfig());
    expectTypeOf(auth).toMatchTypeOf<NextProxy>();
    const wrapped = auth((req: RequestWithAuth<NextRequest>, _event: NextFetchEvent) => {
      expectTypeOf(req.auth).toEqualTypeOf<Session | null>();
      expectTypeOf(req.nextUrl.pathname).toBeString();
    });
    expectTypeOf(wrapped).toMatchTypeOf<NextProxy>();
    // Never called: outside a request, Next's headers() would reject.
    const read = () => auth();
    expectTypeOf(read).returns.resolves.toEqualTypeOf<Session | null>();
    expectTypeOf(handlers.GET).toMatchTypeOf<(request: NextRequest) => Promise<Response>>();
    expectTypeOf(signIn).toBeCallableWith("credentials", new FormData());
    expectTypeOf(signIn).toBeCallableWith("github", { redirectTo: "/" }, { prompt: "login" });
    expectTypeOf(signOut).toBeCallableWith({ redirectTo: "/", redirect: false });
  });

  it("the configuration takes next-auth's authorized callback and a lazy form", () => {
    const config: GatehouseConfig = {
      providers: [],
      callbacks: { authorized: ({ auth }) => Boolean(auth?.user) },
      protect: { paths: ["/admin/*"], signIn: true },
    };
    Gatehouse(config);
    Gatehouse(async (request) => ({ ...config, trustHost: request !== undefined }));
  });
});
