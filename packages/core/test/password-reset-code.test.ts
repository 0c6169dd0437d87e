/**
 * Reset codes (`resetCode`): the reset email also carries a code, typed with the address and the
 * new password on the page a request leads to. A code is single-use, bound like the link (a newer
 * request or a reset ends it), answers alike for every address, and five wrong tries end it and
 * its link; of a burst of guesses at most five are compared.
 */
import { MemoryAdapter } from "@gatehousejs/core/adapters/memory";
import { describe, expect, test } from "vitest";
import { csrfToken, Jar, ORIGIN, send } from "./helpers.js";
import { PASSWORD, passwordWorld } from "./password-world.js";
import { formOf } from "./support/email-link.js";

const OWNER = "owner@example.com";
const NEW_PASSWORD = "a brand new passphrase for me";
const VERIFICATION_ERROR = `${ORIGIN}/auth/error?error=Verification`;

function codeWorld(adapter = MemoryAdapter()) {
  return passwordWorld({
    adapter,
    password: { resetCode: true },
    config: { rateLimit: { email: { perAddress: false } } },
  });
}

/** The code of the last reset email to `to`. */
function codeOf(w: ReturnType<typeof passwordWorld>, to = OWNER): string {
  const code = w.lastMail(to, "resetPassword").code;
  if (!code) throw new Error("The email has no code");
  return code;
}

/** Posts a code from `jar` (JSON with `json`). */
async function postCode(
  w: ReturnType<typeof passwordWorld>,
  jar: Jar,
  code: string,
  { email = OWNER, password = NEW_PASSWORD, json = false } = {},
): Promise<Response> {
  const body = { csrfToken: await csrfToken(w.config, jar), email, code, password };
  return send(
    w.config,
    jar,
    "/auth/reset-password/password",
    json ? { json: body } : { form: body },
  );
}

describe("a reset code", () => {
  test("the request leads to a page that takes it; typed there, it resets and signs in", async () => {
    const w = codeWorld();
    await w.verifiedUser(OWNER);
    const laptop = new Jar();
    await w.signIn(laptop, OWNER, PASSWORD);
    const jar = new Jar();
    const asked = await w.requestReset(jar, OWNER);
    const location = new URL(asked.headers.get("location")!);
    expect(location.pathname).toBe("/auth/reset-password/password");
    expect(location.searchParams.get("email")).toBe(OWNER);

    const mail = w.lastMail(OWNER);
    expect(mail.code).toMatch(/^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    expect(mail.text).toContain(mail.code);
    expect(mail.html).toContain(mail.code);

    const page = await send(w.config, jar, location.pathname + location.search);
    const html = await page.text();
    expect(html).toMatch(/<label for="input-code-for-password-provider">Code<\/label>/);
    expect(html).toMatch(/autocomplete="one-time-code"/);
    expect(html).toContain(`value="${OWNER}"`);
    const { action, fields } = formOf(html);
    // Typed as people type: lower case, without the dash.
    const typed = mail.code!.replace("-", "").toLowerCase();
    const response = await send(w.config, jar, new URL(action).pathname, {
      form: { ...fields, email: OWNER, code: typed, password: NEW_PASSWORD },
    });
    expect(response.headers.get("location")).toBe(ORIGIN);
    expect(await w.signedInAs(jar)).toBe(OWNER);
    expect(await w.signedInAs(laptop)).toBeNull();
    expect(w.lastMail(OWNER).kind).toBe("passwordChanged");

    // Spent, and so is the link of the same email.
    const again = await postCode(w, new Jar(), mail.code!, { json: true });
    expect(await again.json()).toMatchObject({ error: "WrongCode" });
    const link = await w.follow(new Jar(), new URL(mail.url), { password: PASSWORD });
    expect(link.response.headers.get("location")).toBe(VERIFICATION_ERROR);
  });

  test("a newer request ends the older code", async () => {
    const w = codeWorld();
    await w.verifiedUser(OWNER);
    await w.requestReset(new Jar(), OWNER);
    const first = codeOf(w);
    await w.requestReset(new Jar(), OWNER);
    const old = await postCode(w, new Jar(), first, { json: true });
    expect(old.status).toBe(400);
    expect(await old.json()).toMatchObject({ error: "WrongCode" });
    const jar = new Jar();
    await postCode(w, jar, codeOf(w));
    expect(await w.signedInAs(jar)).toBe(OWNER);
  });

  test("five wrong tries end the code and its link: the right code sets nothing after them", async () => {
    const w = codeWorld();
    await w.verifiedUser(OWNER);
    await w.requestReset(new Jar(), OWNER);
    const right = codeOf(w);
    const link = new URL(w.lastMail(OWNER).url);
    const answers: string[] = [];
    for (let i = 0; i < 5; i++) {
      const wrong = await postCode(w, new Jar(), `WRNG${i}${i}${i}${i}`, { json: true });
      answers.push(((await wrong.json()) as { error: string }).error);
    }
    expect(answers).toEqual(["WrongCode", "WrongCode", "WrongCode", "WrongCode", "CodeUnusable"]);
    // Its request's generation is gone: the right code matches nothing now.
    const late = await postCode(w, new Jar(), right, { json: true });
    expect(late.status).toBe(400);
    const signIn = await w.signIn(new Jar(), OWNER, PASSWORD);
    expect(signIn.headers.get("location")).toBe(ORIGIN);
    const viaLink = await w.follow(new Jar(), link, { password: NEW_PASSWORD });
    expect(viaLink.response.headers.get("location")).toBe(VERIFICATION_ERROR);
    // A new request brings a new code, which works.
    await w.requestReset(new Jar(), OWNER);
    const jar = new Jar();
    await postCode(w, jar, codeOf(w));
    expect(await w.signedInAs(jar)).toBe(OWNER);
  });

  test("of 20 guesses at once, at most five are compared", async () => {
    const base = MemoryAdapter();
    let compared = 0;
    const adapter = {
      ...base,
      useVerificationToken: (key: Parameters<typeof base.useVerificationToken>[0]) => {
        if (key.identifier.startsWith("gatehouse.password-reset:")) compared++;
        return base.useVerificationToken(key);
      },
    };
    const w = codeWorld(adapter);
    await w.verifiedUser(OWNER);
    await w.requestReset(new Jar(), OWNER);
    const jar = new Jar();
    const token = await csrfToken(w.config, jar);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const fresh = new Jar();
        for (const [name, value] of jar.cookies) fresh.cookies.set(name, value);
        return send(w.config, fresh, "/auth/reset-password/password", {
          json: {
            csrfToken: token,
            email: OWNER,
            code: `GUESS${String(i).padStart(3, "2")}`,
            password: NEW_PASSWORD,
          },
        });
      }),
    );
    // One secret in the rotation list: one comparison per try.
    expect(compared).toBeLessThanOrEqual(5);
  });

  test("a wrong code answers the same for every address", async () => {
    const w = codeWorld();
    await w.verifiedUser(OWNER);
    await w.verifiedUser("idle@example.com");
    await w.requestReset(new Jar(), OWNER);
    const answers = [];
    for (const email of [OWNER, "idle@example.com", "nobody@example.com"]) {
      for (const json of [true, false]) {
        const response = await postCode(w, new Jar(), "ABCD-EFGH", { email, json });
        const body = (await response.text())
          .replace(/value="[^"]*"/g, 'value=""')
          .replace(/nonce="[^"]*"/g, 'nonce=""');
        answers.push({ email, json, status: response.status, body });
      }
    }
    const forJson = answers.filter((a) => a.json).map(({ status, body }) => ({ status, body }));
    const forForm = answers.filter((a) => !a.json).map(({ status, body }) => ({ status, body }));
    for (const list of [forJson, forForm]) {
      for (const answer of list.slice(1)) expect(answer).toEqual(list[0]);
    }
    expect(forJson[0]!.status).toBe(400);
  });

  test("a provider without resetCode sends no code and takes none", async () => {
    const w = passwordWorld();
    await w.verifiedUser(OWNER);
    await w.requestReset(new Jar(), OWNER);
    expect(w.lastMail(OWNER).code).toBeUndefined();
    expect(w.lastMail(OWNER).text).not.toContain("type this code");
    const response = await postCode(w, new Jar(), "ABCD-EFGH");
    expect(response.headers.get("location")).toBe(VERIFICATION_ERROR);
  });
});
