/**
 * The public types: no `any` anywhere a user touches, events typed by what is read, and the
 * handlers fit SolidStart's own types (checked by tsc over this file; the runtime part is small).
 */
import type { Session } from "@gatehousejs/core/types";
import {
  type AuthMiddlewareHandler,
  authMiddleware,
  getSession,
  type requireSession,
  SolidAuth,
  type SolidAuthConfig,
  type SolidAuthEvent,
  type User,
} from "@gatehousejs/solid-start";
import {
  createSession,
  listSessions,
  type RevokeSessionsResult,
  type RevokeSessionsTarget,
  revokeSessions,
  type SessionInfo,
  type SessionStatus,
  type SignInOptions,
  type SignInResult,
  type SignOutResult,
  signIn,
  signOut,
} from "@gatehousejs/solid-start/client";
import type { createMiddleware } from "@solidjs/start/middleware";
import type { APIEvent, FetchEvent } from "@solidjs/start/server";
import { describe, expect, expectTypeOf, test } from "vitest";
import { credentialsConfig } from "./support.js";

type Middleware = NonNullable<Parameters<typeof createMiddleware>[0]["onRequest"]>;

describe("server types", () => {
  test("SolidAuth's handlers take a structural event and answer a Response or undefined", () => {
    const { GET, POST } = SolidAuth(credentialsConfig());
    expectTypeOf(GET).parameter(0).toEqualTypeOf<SolidAuthEvent>();
    expectTypeOf(GET).parameter(0).not.toBeAny();
    expectTypeOf(GET).returns.toEqualTypeOf<Promise<Response | undefined>>();
    expectTypeOf(POST).toEqualTypeOf(GET);
    expectTypeOf<SolidAuthEvent>().toEqualTypeOf<{
      request: Request;
      clientAddress?: string | undefined;
    }>();
    // SolidStart's own events fit, and a plain { request } does too.
    expectTypeOf<APIEvent>().toExtend<SolidAuthEvent>();
    expectTypeOf<FetchEvent>().toExtend<SolidAuthEvent>();
    expect(typeof GET).toBe("function");
  });

  test("getSession and requireSession are typed with the session, no any", () => {
    expectTypeOf(getSession).returns.toEqualTypeOf<Promise<Session | null>>();
    expectTypeOf(getSession).parameters.toEqualTypeOf<[Request, SolidAuthConfig]>();
    type Required = Awaited<ReturnType<typeof requireSession>>;
    expectTypeOf<Required["user"]>().toEqualTypeOf<User>();
    expectTypeOf<Required["user"]>().not.toBeNullable();
    expectTypeOf<Required["expires"]>().toBeString();
  });

  test("authMiddleware's handler fits createMiddleware's onRequest", () => {
    const handler = authMiddleware(credentialsConfig(), { protectedPaths: ["/account"] });
    expectTypeOf(handler).toEqualTypeOf<AuthMiddlewareHandler>();
    expectTypeOf(handler).toExtend<Middleware>();
    expectTypeOf(handler).parameter(0).not.toBeAny();
    expectTypeOf<FetchEvent>().toExtend<Parameters<AuthMiddlewareHandler>[0]>();
    expectTypeOf(handler).returns.toEqualTypeOf<Promise<Response | undefined>>();
  });

  test("the configuration has no any: events and callbacks are typed", () => {
    type Events = NonNullable<SolidAuthConfig["events"]>;
    expectTypeOf<Events>().not.toBeAny();
    expectTypeOf<NonNullable<Events["signIn"]>>().parameter(0).not.toBeAny();
    expectTypeOf<SolidAuthConfig["prefix"]>().toEqualTypeOf<string | undefined>();
    // basePath comes from prefix; raw is not for integrations.
    expectTypeOf<SolidAuthConfig>().not.toHaveProperty("basePath");
    expectTypeOf<SolidAuthConfig>().not.toHaveProperty("raw");
  });
});

describe("client types", () => {
  test("signIn: redirect false resolves with the result, otherwise maybe undefined", () => {
    // Typed calls only, never run: the client needs a browser.
    const stay = () => signIn("credentials", { redirect: false });
    const go = () => signIn("github");
    expectTypeOf(stay).returns.toEqualTypeOf<Promise<SignInResult>>();
    expectTypeOf(go).returns.toEqualTypeOf<Promise<SignInResult | undefined>>();
    expectTypeOf<SignInResult>().toEqualTypeOf<{
      ok: boolean;
      error: string | undefined;
      code: string | undefined;
      status: number;
      url: string | null;
      twoFactorRequired?: true;
    }>();
    expectTypeOf<SignInOptions["email"]>().toEqualTypeOf<string | number | boolean | undefined>();
  });

  test("signOut and createSession", () => {
    const leave = () => signOut({ redirect: false });
    expectTypeOf(leave).returns.toEqualTypeOf<Promise<SignOutResult>>();
    expectTypeOf(createSession).returns.toHaveProperty("session");
    type Store = ReturnType<typeof createSession>;
    expectTypeOf<ReturnType<Store["session"]>>().toEqualTypeOf<Session | null | undefined>();
    expectTypeOf<ReturnType<Store["status"]>>().toEqualTypeOf<SessionStatus>();
    expectTypeOf<SessionStatus>().toEqualTypeOf<"loading" | "authenticated" | "unauthenticated">();
    expectTypeOf<Store["update"]>().parameter(0).toBeUnknown();
    expectTypeOf<Awaited<ReturnType<Store["update"]>>>().toEqualTypeOf<Session | null>();
  });

  test("listSessions and revokeSessions: typed answers, only the three targets", () => {
    expectTypeOf(listSessions).returns.toEqualTypeOf<Promise<SessionInfo[] | null>>();
    expectTypeOf<SessionInfo["id"]>().toEqualTypeOf<string>();
    expectTypeOf<SessionInfo["strategy"]>().toEqualTypeOf<"jwt" | "database">();
    expectTypeOf(revokeSessions).returns.toEqualTypeOf<Promise<RevokeSessionsResult>>();
    expectTypeOf<RevokeSessionsResult>().toEqualTypeOf<{ revoked: number }>();
    expectTypeOf<{ id: string }>().toExtend<RevokeSessionsTarget>();
    expectTypeOf<{ others: true }>().toExtend<RevokeSessionsTarget>();
    expectTypeOf<{ all: true }>().toExtend<RevokeSessionsTarget>();
    expectTypeOf<{ others: false }>().not.toExtend<RevokeSessionsTarget>();
    expectTypeOf<{ everyone: true }>().not.toExtend<RevokeSessionsTarget>();
  });
});
