/**
 * The package README's sign-out form, run as it is printed: the block marked
 * `<!-- docs-check: run (…) -->` is written to a file and imported; its page is rendered for a
 * signed-in browser, and the form it renders signs that browser out.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Block, documentationBlocks, root } from "../../../tests/docs/markdown.js";
import { credentialsConfig, Jar, ORIGIN, send, signInAlice } from "./helpers.js";

type Snippet = {
  renderAccount(request: Request, config: AuthConfig): Promise<Response>;
};

const [block, ...others]: Block[] = documentationBlocks().filter(
  (b) => b.file === "packages/core/README.md" && b.marker?.kind === "run",
);
const folder = join(root, ".tmp", `docs-sign-out-form-${process.pid}`);
let snippet: Snippet;

const SESSION = "authjs.session-token";
const CSRF = "authjs.csrf-token";

/** Renders the snippet's page for the jar's browser, keeping the cookies it sets. */
async function renderFor(config: AuthConfig, jar: Jar): Promise<string> {
  const request = new Request(`${ORIGIN}/account`, { headers: { cookie: jar.header() } });
  const response = jar.take(await snippet.renderAccount(request, config));
  expect(response.status).toBe(200);
  return response.text();
}

/** Submits the rendered form as a browser would: its hidden fields, to its action. */
async function submit(config: AuthConfig, jar: Jar, html: string): Promise<Response> {
  const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1] ?? "";
  const form = Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [
      m[1] ?? "",
      m[2] ?? "",
    ]),
  );
  return send(config, jar, action, { form });
}

describe("the package README's sign-out form", () => {
  beforeAll(async () => {
    expect(block, "packages/core/README.md has one block marked docs-check: run").toBeDefined();
    expect(others).toEqual([]);
    mkdirSync(folder, { recursive: true });
    const file = join(folder, "account.ts");
    writeFileSync(file, block!.code);
    snippet = (await import(file)) as Snippet;
  });
  afterAll(() => {
    rmSync(folder, { recursive: true, force: true });
  });

  test("signs the browser out as rendered", async () => {
    const config = credentialsConfig();
    const jar = new Jar();
    await signInAlice(config, jar);
    expect(jar.cookies.has(SESSION)).toBe(true);
    const html = await renderFor(config, jar);
    expect(html).toMatch(/name="csrfToken" value="[0-9a-f]{64}"/);
    const answer = await submit(config, jar, html);
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toBe(`${ORIGIN}/`);
    expect(jar.cookies.has(SESSION)).toBe(false);
  });

  test("a browser without a CSRF cookie gets one with the page, and the form works", async () => {
    const config = credentialsConfig();
    const jar = new Jar();
    await signInAlice(config, jar);
    jar.cookies.delete(CSRF);
    const html = await renderFor(config, jar);
    expect(jar.cookies.has(CSRF)).toBe(true);
    await submit(config, jar, html);
    expect(jar.cookies.has(SESSION)).toBe(false);
  });

  test("a form whose cookie was replaced goes to the sign-out page, still signed in", async () => {
    const config = credentialsConfig();
    const jar = new Jar();
    await signInAlice(config, jar);
    const html = await renderFor(config, jar);
    jar.cookies.delete(CSRF);
    const answer = await submit(config, jar, html);
    expect(answer.headers.get("location")).toMatch(/\/auth\/signout\?error=MissingCSRF/);
    expect(jar.cookies.has(SESSION)).toBe(true);
  });
});
