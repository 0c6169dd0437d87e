/**
 * Credentials attempts whose `authorize` is still running, on the memory store: each waits as if
 * the attempts in flight beside it on the same streak had failed, only on the same streak, and
 * only while they are in flight (or until five minutes have passed). Here `authorize` answers
 * when the test says so, so the attempts land in a chosen order.
 */
import Credentials from "@gatehousejs/core/providers/credentials";
import type { AuthConfig } from "@gatehousejs/core/types";
import { afterEach, expect, test, vi } from "vitest";
import { alice, csrfToken, Jar, recordingLogger, SECRET, send } from "./helpers.js";

const PASSWORDS: Record<string, string> = { alice: "wonderland", bob: "builder" };
const ATTACKER = "198.51.100.7";

/**
 * Alice and Bob behind one trusted proxy, on the default memory store and limits (five free
 * failures, then 1 s, 2 s, …). A password ending in "later" is checked when `land` is called.
 */
function world() {
  const held: Array<() => void> = [];
  const authorize = vi.fn(({ username, password }: Partial<Record<string, unknown>>) => {
    const name = String(username);
    const typed = String(password);
    const user = () =>
      PASSWORDS[name] === typed.replace(/ later$/, "")
        ? { ...alice, id: name, email: `${name}@example.com` }
        : null;
    if (!typed.endsWith(" later")) return user();
    return new Promise<ReturnType<typeof user>>((resolve) => held.push(() => resolve(user())));
  });
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    trustedProxies: 1,
    logger: recordingLogger(),
    providers: [
      Credentials({
        credentials: { username: {}, password: { type: "password" } },
        authorize,
      }),
    ],
  };
  /** Lets the `n`-th attempt still in `authorize` (in the order they started) answer. */
  const land = (n = 0) => held.splice(n, 1)[0]?.();
  return { config, authorize, held, land };
}

/** Starts one attempt; resolves once its answer is in (`authorize` may still be holding it). */
function attempt(config: AuthConfig, username: string, password: string) {
  const jar = new Jar();
  return (async () => {
    const csrf = await csrfToken(config, jar);
    const response = await send(config, jar, "/auth/callback/credentials", {
      form: { csrfToken: csrf, username, password },
      headers: { "x-forwarded-for": ATTACKER, "x-auth-return-redirect": "1" },
    });
    return response.status;
  })();
}

/**
 * Starts an attempt that `authorize` holds, and waits until it is in flight; `answer` is its
 * status once it has landed.
 */
async function inFlight(w: ReturnType<typeof world>, username: string, password: string) {
  const before = w.held.length;
  const answer = attempt(w.config, username, password);
  // Turns of the event loop, not vi.waitFor: that moves a faked clock on.
  for (let turn = 0; w.held.length === before; turn++) {
    if (turn > 10_000) throw new Error("the attempt never reached authorize");
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { answer };
}

async function fail(config: AuthConfig, username: string, times: number) {
  for (let i = 0; i < times; i++) expect(await attempt(config, username, "wrong")).toBe(200);
}

afterEach(() => {
  vi.useRealTimers();
});

test("an attempt in flight on one account does not hold back another account's attempts", async () => {
  const w = world();
  await fail(w.config, "alice", 5);
  const { answer: bob } = await inFlight(w, "bob", "wrong later");
  // Alice's sixth failure is still free: Bob's attempt in flight is not on her streak.
  expect(await attempt(w.config, "alice", "wrong")).toBe(200);
  expect(await attempt(w.config, "alice", "wrong")).toBe(429);
  w.land();
  expect(await bob).toBe(200);
});

test("when one attempt of a burst lands, the others still in flight still count", async () => {
  const w = world();
  await fail(w.config, "alice", 3);
  // Three in flight: 3 failures + 0, + 1, + 2 in flight: all within the five free ones.
  const { answer: first } = await inFlight(w, "alice", "wrong later");
  const { answer: second } = await inFlight(w, "alice", "wrong later");
  const { answer: third } = await inFlight(w, "alice", "wrong later");
  w.land();
  expect(await first).toBe(200);
  // 4 failures and 2 still in flight: this one waits as if those had failed.
  expect(await attempt(w.config, "alice", "wrong")).toBe(429);
  w.land();
  w.land();
  expect([await second, await third]).toEqual([200, 200]);
  expect(w.authorize).toHaveBeenCalledTimes(6);
});

test("an attempt in flight holds the streak back for exactly five minutes, then counts as lost", async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  const w = world();
  await fail(w.config, "alice", 5);
  const { answer: hung } = await inFlight(w, "alice", "wrong later");
  vi.setSystemTime(Date.now() + 5 * 60 * 1000);
  expect(await attempt(w.config, "alice", "wrong")).toBe(429);
  vi.setSystemTime(Date.now() + 1);
  expect(await attempt(w.config, "alice", "wrong")).toBe(200);
  w.land();
  expect(await hung).toBe(200);
});

test("an attempt that lands after it counted as lost does not end the flight that replaced it", async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  const w = world();
  await fail(w.config, "alice", 4);
  const { answer: lost } = await inFlight(w, "alice", "wrong later");
  vi.setSystemTime(Date.now() + 5 * 60 * 1000 + 1);
  // The lost one is dropped: this one starts a flight of its own (4 failures + 0).
  const { answer: replacing } = await inFlight(w, "alice", "wrong later");
  w.land(0);
  expect(await lost).toBe(200);
  // 5 failures, and the replacing attempt still in flight: this one waits.
  expect(await attempt(w.config, "alice", "wrong")).toBe(429);
  w.land(0);
  expect(await replacing).toBe(200);
});

test("a success that lands after its flight counted as lost does not forget a failure made since", async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  const w = world();
  const { answer: right } = await inFlight(w, "alice", "wonderland later");
  vi.setSystemTime(Date.now() + 5 * 60 * 1000 + 1);
  // A failure after the right password's flight was dropped as lost.
  expect(await attempt(w.config, "alice", "wrong")).toBe(200);
  w.land();
  expect(await right).toBe(200);
  // The failure stands: four more free ones, then the first wait.
  w.authorize.mockClear();
  for (let i = 0; i < 10; i++) {
    if ((await attempt(w.config, "alice", "wrong")) === 429) break;
  }
  expect(w.authorize).toHaveBeenCalledTimes(5);
});
