/**
 * The public types, checked by `tsc` (the repository's typecheck compiles the tests): the
 * session `requireAuth()` leaves in `res.locals`, and the helpers typed with Express's own types.
 */
import type { Session } from "@gatehousejs/core/types";
import {
  type GatehouseConfig,
  gatehouse,
  getSession,
  requireAuth,
  type SessionWithUser,
} from "@gatehousejs/express";
import type { Request, RequestHandler, Response, Router } from "express";
import { expectTypeOf, test } from "vitest";

test("res.locals.session is the signed-in session, with its user", () => {
  expectTypeOf<Response["locals"]["session"]>().toEqualTypeOf<SessionWithUser | undefined>();
  expectTypeOf<SessionWithUser["user"]>().not.toBeNullable();
});

test("the helpers take and give Express's own types", () => {
  expectTypeOf(gatehouse).parameter(0).toEqualTypeOf<GatehouseConfig>();
  expectTypeOf(gatehouse).returns.toEqualTypeOf<Router>();
  expectTypeOf(getSession).toEqualTypeOf<
    (req: Request, res?: Response) => Promise<Session | null>
  >();
  expectTypeOf(requireAuth).returns.toEqualTypeOf<RequestHandler>();
  // @ts-expect-error: the prefix comes from `prefix`, never from core's basePath
  gatehouse({ providers: [], basePath: "/auth" });
});
