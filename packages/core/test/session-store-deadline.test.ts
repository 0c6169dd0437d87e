/**
 * The deadline that bounds ending a session while its store misbehaves, rule by rule, on a fake
 * clock: what a passed deadline refuses, how long a race waits and that it leaves no timer
 * behind, and how `retryWithin` spaces its attempts (at most four, 100, 200 and 400 ms apart),
 * counts a straggler's late success, gives up with the last failure as the cause, and lets a
 * configuration error through at once. signout-outage.test.ts shows the same through `Auth()`.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import { AdapterError, MissingAdapterMethods, SessionStoreUnavailable } from "../src/lib/errors.js";
import { retryWithin, StoreDeadline } from "../src/lib/session/store-deadline.js";

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
});

afterEach(() => {
  vi.useRealTimers();
});

/** A promise's outcome so far, without waiting for it. */
function watch<T>(promise: Promise<T>) {
  const seen: { value?: T; error?: unknown; done: boolean; at?: number } = { done: false };
  promise.then(
    (value) => Object.assign(seen, { value, done: true, at: performance.now() }),
    (error: unknown) => Object.assign(seen, { error, done: true, at: performance.now() }),
  );
  return seen;
}

/** A store call that records when it was made and answers as `answer` says for that attempt. */
function storeCall(answer: (attempt: number) => Promise<string>) {
  const at: number[] = [];
  const start = performance.now();
  const call = () => {
    at.push(performance.now() - start);
    return answer(at.length);
  };
  return { call, at };
}

const never = () => new Promise<never>(() => {});
const refused = () => Promise.reject(new Error("connect ECONNREFUSED"));

describe("StoreDeadline", () => {
  test("check() passes while time is left and throws SessionStoreUnavailable from the very end on", () => {
    const deadline = new StoreDeadline(1000);
    vi.advanceTimersByTime(999);
    expect(() => deadline.check("ending the session")).not.toThrow();
    vi.advanceTimersByTime(1);
    expect(deadline.remaining()).toBe(0);
    let thrown: unknown;
    try {
      deadline.check("ending the session");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SessionStoreUnavailable);
    expect((thrown as Error).message).toBe(
      "The session store is unavailable (ending the session: no time left)",
    );
    expect((thrown as SessionStoreUnavailable).retryAfter).toBe(5);
    // Nothing failed: the log line shows no cause, not an empty one.
    expect("cause" in (thrown as Error)).toBe(false);
  });

  test("race() with no time left refuses at once, whatever the work would do", async () => {
    const deadline = new StoreDeadline(0);
    const seen = watch(deadline.race("the session's subject", Promise.resolve("late")));
    await vi.advanceTimersByTimeAsync(0);
    expect(seen.done).toBe(true);
    expect((seen.error as Error).message).toBe(
      "The session store is unavailable (the session's subject: no time left)",
    );
    expect(vi.getTimerCount()).toBe(0);
  });

  test("race() waits for the work until the deadline, then refuses; either way it leaves no timer behind", async () => {
    const deadline = new StoreDeadline(1000);
    const quick = watch(
      deadline.race("quick", new Promise((resolve) => setTimeout(() => resolve("done"), 300))),
    );
    await vi.advanceTimersByTimeAsync(300);
    expect(quick).toMatchObject({ done: true, value: "done" });
    expect(vi.getTimerCount()).toBe(0);

    const slow = watch(deadline.race("slow", never()));
    await vi.advanceTimersByTimeAsync(699);
    expect(slow.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((slow.error as Error).message).toBe(
      "The session store is unavailable (slow: no answer in time)",
    );
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("retryWithin", () => {
  test("a store that refuses at once is tried four times, 100, 200 and 400 ms apart, then given up with its last failure as the cause", async () => {
    const { call, at } = storeCall(refused);
    const seen = watch(retryWithin(new StoreDeadline(), "deleteSession", call));
    await vi.advanceTimersByTimeAsync(3000);
    expect(at).toEqual([0, 100, 300, 700]);
    // Given up right after the fourth failure, not after one more pause.
    expect(seen.at).toBe(700);
    const error = seen.error as SessionStoreUnavailable;
    expect(error).toBeInstanceOf(SessionStoreUnavailable);
    expect(error.message).toBe(
      "The session store is unavailable (deleteSession did not succeed before the deadline)",
    );
    expect((error.cause as Error).message).toBe("connect ECONNREFUSED");
    expect(vi.getTimerCount()).toBe(0);
  });

  test("a store that never answers: a second per attempt, until the deadline; the cause says the last attempt had no answer", async () => {
    const { call, at } = storeCall(never);
    const seen = watch(retryWithin(new StoreDeadline(), "revokeSession", call));
    await vi.advanceTimersByTimeAsync(5000);
    // 0 to 1000, a pause of 100, 1100 to 2100, a pause of 200, then 2300 to the deadline.
    expect(at).toEqual([0, 1100, 2300]);
    // Given up at the deadline (after the pause it leaves, of no time: one timer tick).
    expect(seen.at).toBeGreaterThanOrEqual(3000);
    expect(seen.at).toBeLessThanOrEqual(3001);
    expect(((seen.error as Error).cause as Error).message).toBe("attempt 3 had no answer in time");
    expect(vi.getTimerCount()).toBe(0);
  });

  test("a store that answers at the fourth attempt: its answer, and no timer left", async () => {
    const { call, at } = storeCall((attempt) =>
      attempt < 4 ? refused() : Promise.resolve("deleted"),
    );
    const seen = watch(retryWithin(new StoreDeadline(), "deleteSession", call));
    await vi.advanceTimersByTimeAsync(3000);
    expect(seen).toMatchObject({ done: true, value: "deleted", at: 700 });
    expect(at).toHaveLength(4);
    expect(vi.getTimerCount()).toBe(0);
  });

  test("an answer at the first attempt: one call, and the attempt's timer is cleared", async () => {
    const { call, at } = storeCall(() => Promise.resolve("deleted"));
    const seen = watch(retryWithin(new StoreDeadline(), "deleteSession", call));
    await vi.advanceTimersByTimeAsync(0);
    expect(seen).toMatchObject({ done: true, value: "deleted", at: 0 });
    expect(at).toEqual([0]);
    expect(vi.getTimerCount()).toBe(0);
  });

  test("an attempt that answers during the pause after its time ran out counts: no further attempt", async () => {
    // The first attempt answers after 1050 ms: past its second, within the 100 ms pause.
    const { call, at } = storeCall(
      () => new Promise((resolve) => setTimeout(() => resolve("deleted"), 1050)),
    );
    const seen = watch(retryWithin(new StoreDeadline(), "deleteSession", call));
    await vi.advanceTimersByTimeAsync(3000);
    expect(seen).toMatchObject({ done: true, value: "deleted", at: 1050 });
    expect(at).toEqual([0]);
  });

  test("a call that throws instead of rejecting is retried the same way", async () => {
    const { call, at } = storeCall((attempt) => {
      if (attempt === 1) throw new Error("pool exhausted");
      return Promise.resolve("deleted");
    });
    const seen = watch(retryWithin(new StoreDeadline(), "deleteSession", call));
    await vi.advanceTimersByTimeAsync(3000);
    expect(seen).toMatchObject({ done: true, value: "deleted", at: 100 });
    expect(at).toEqual([0, 100]);
  });

  test("with no time left, the store is not called at all", async () => {
    const { call, at } = storeCall(() => Promise.resolve("deleted"));
    const seen = watch(retryWithin(new StoreDeadline(0), "deleteSession", call));
    await vi.advanceTimersByTimeAsync(0);
    expect(at).toEqual([]);
    expect(seen.error).toBeInstanceOf(SessionStoreUnavailable);
    expect("cause" in (seen.error as Error)).toBe(false);
  });

  test("a Gatehouse configuration error fails at once; an adapter's failure is retried", async () => {
    const misconfigured = storeCall(() =>
      Promise.reject(new MissingAdapterMethods("deleteSession is missing")),
    );
    const seen = watch(retryWithin(new StoreDeadline(), "deleteSession", misconfigured.call));
    await vi.advanceTimersByTimeAsync(3000);
    expect(seen.error).toBeInstanceOf(MissingAdapterMethods);
    expect(misconfigured.at).toEqual([0]);

    const failing = storeCall(() => Promise.reject(new AdapterError("Adapter method failed")));
    const retried = watch(retryWithin(new StoreDeadline(), "deleteSession", failing.call));
    await vi.advanceTimersByTimeAsync(3000);
    expect(retried.error).toBeInstanceOf(SessionStoreUnavailable);
    expect(failing.at).toHaveLength(4);
  });
});
