/**
 * Every route is declared once (src/lib/routes/): these tests hold the handler to each
 * declaration, so a declaration that says the wrong thing fails here: the methods it answers
 * (anything else is a 405 with the declared `Allow`), its provider segment, and its CSRF rule.
 */
import { Auth } from "@gatehousejs/core";
import { describe, expect, test } from "vitest";
import { routes } from "../src/lib/routes/index.js";
import { credentialsConfig, Jar, ORIGIN, recordingLogger, send, signInAlice } from "./helpers.js";

const config = credentialsConfig();
const path = (name: string, provider?: string) =>
  `/auth/${name}${provider === undefined ? "" : `/${provider}`}`;

describe("each declared route", () => {
  test("the list names every route once", () => {
    const names = routes.map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
  });

  for (const route of routes) {
    const provider = route.provider === "required" ? "credentials" : undefined;
    test(`${route.name}: answers its declared methods and refuses the others with Allow`, async () => {
      for (const method of ["GET", "POST", "PUT", "DELETE"]) {
        const response = await Auth(
          new Request(`${ORIGIN}${path(route.name, provider)}`, { method }),
          config,
        );
        if ((route.methods as readonly string[]).includes(method)) {
          // A sign-in method may narrow it further (a credentials callback is POST only), but
          // the route itself lets the method through.
          if (response.status === 405) {
            expect(response.headers.get("allow")).not.toBe(route.methods.join(", "));
          }
        } else {
          expect(response.status, `${method} ${route.name}`).toBe(405);
          expect(response.headers.get("allow")).toBe(route.methods.join(", "));
        }
      }
    });

    test(`${route.name}: the provider segment is ${route.provider === "no" ? "refused" : route.provider}`, async () => {
      const method = route.providerMethods?.[0] ?? route.methods[0];
      const withId = await Auth(
        new Request(`${ORIGIN}${path(route.name, "credentials")}`, { method }),
        config,
      );
      const without = await Auth(new Request(`${ORIGIN}${path(route.name)}`, { method }), config);
      const unknown = async (r: Response) =>
        r.status === 400 &&
        ((await r.clone().json()) as { error?: string }).error === "UnknownAction";
      expect(await unknown(withId)).toBe(route.provider === "no");
      expect(await unknown(without)).toBe(route.provider === "required");
    });
  }

  for (const route of routes.filter((r) => r.csrf === "post")) {
    test(`${route.name}: a POST without the CSRF token is refused and changes nothing`, async () => {
      const logger = recordingLogger();
      const config = credentialsConfig({ logger });
      const jar = new Jar();
      await signInAlice(config, jar);
      const before = await (await send(config, jar, "/auth/session")).json();
      expect(before).toMatchObject({ user: { name: "Alice" } });
      const response = await send(config, jar, path(route.name), {
        method: "POST",
        form: { data: "{}", all: "true", callbackUrl: `${ORIGIN}/` },
      });
      // Refused: an error page, a 4xx or the sign-out page that says why, and one warn line.
      expect(response.status === 302 || response.status >= 400).toBe(true);
      const warned = logger.warn.mock.calls.map(
        ([, detail]) => (detail as { type?: string })?.type,
      );
      expect(warned).toContain("MissingCSRF");
      const after = await (await send(config, jar, "/auth/session")).json();
      expect(after).toEqual(before);
    });
  }
});
