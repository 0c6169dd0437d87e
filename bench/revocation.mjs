/**
 * The JWT session check with instant revocation (issue 12): GET /auth/session with a valid JWT
 * cookie, without a revocation store, with the memory store and with the Redis store, and one
 * bare Redis MGET through the same client for scale. Targets: the memory store costs under 10 %
 * of the check (ratio ≥ 0.9 against the check without a store); Redis adds one round trip and
 * nothing else, so the check with the Redis store runs as fast as the check without a store
 * followed by one bare MGET (ratio ≥ 0.9). That pair, rather than the check and a lone MGET,
 * is the fair reference: on a busy machine a round trip that follows a burst of CPU work costs
 * more than one in a tight loop of round trips (the wake-up of both processes).
 *
 * Run alone with `node bench/revocation.mjs` (BENCH_BUDGET_MS, BENCH_WARMUP_MS, REDIS_URL), or
 * from run.mjs, which adds its rows to the main table.
 */
import { pathToFileURL } from "node:url";
import { Auth } from "@gatehousejs/core";
import { encode } from "@gatehousejs/core/jwt";
import Credentials from "@gatehousejs/core/providers/credentials";
import { MemoryRevocationStore } from "@gatehousejs/core/revocation/memory";
import { RedisRevocationStore } from "@gatehousejs/redis-adapter";
import { Redis } from "ioredis";
import { CheckFailed, check, recordingLogger } from "./check.mjs";
import { ORIGIN, SALT, SECRET, USER } from "./contenders.mjs";
import { compare, warmUp } from "./harness.mjs";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const HOUR = 3_600_000;
/** Revocations of other sessions and users already in each store, so that it is not empty. */
const OTHERS = 1000;

const sid = (n) => `bench${String(n).padStart(17, "0")}`;

function configWith(store, logger) {
  return {
    secret: SECRET,
    trustHost: true,
    basePath: "/auth",
    logger,
    providers: [Credentials({ credentials: {}, authorize: async () => null })],
    session: { strategy: "jwt", ...(store ? { revocation: { store } } : {}) },
  };
}

const request = (cookie) =>
  new Request(`${ORIGIN}/auth/session`, { headers: { cookie: `${SALT}=${cookie}` } });

/** A `{ prepare, run }` op: a fresh Request per call, built outside the clock. */
const sessionOp = (config, cookie) => ({
  prepare: () => request(cookie),
  run: (req) => Auth(req, config),
});

async function answer(config, cookie) {
  const response = await Auth(request(cookie), config);
  return {
    status: response.status,
    body: JSON.parse(await response.text()),
    setCookie: response.headers.getSetCookie().length > 0,
  };
}

/** Fills a store with revocations of other sessions and other users. */
async function populate(store) {
  const expires = new Date(Date.now() + HOUR);
  const at = Math.floor(Date.now() / 1000);
  for (let i = 0; i < OTHERS; i++) {
    await store.revokeSession({ userId: USER.sub, sessionId: sid(i + 10), expires });
    await store.revokeUser({ userId: `other-${i}`, at, expires });
  }
}

/** Opens Redis and counts the commands sent through the store's client; null when unreachable. */
async function openRedis() {
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 2000,
  });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.disconnect();
    return { skipped: `Redis at ${new URL(REDIS_URL).host} unreachable (${error.message})` };
  }
  const prefix = `gatehouse-bench-revocation:${process.pid}:`;
  let commands = [];
  const counted = {
    call: (command, ...args) => {
      commands.push(String(command).toUpperCase());
      return client.call(command, ...args);
    },
  };
  return {
    client,
    prefix,
    store: RedisRevocationStore(counted, { prefix }),
    takeCommands() {
      const taken = commands;
      commands = [];
      return taken;
    },
    async close() {
      let cursor = "0";
      do {
        const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
        if (keys.length) await client.del(...keys);
        cursor = next;
      } while (cursor !== "0");
      await client.quit();
    },
  };
}

/**
 * Checks, warms and times the contenders, then adds their rows to `out` (see run.mjs).
 * `log` is run.mjs's recording logger: no error may be logged while timing.
 */
export async function revocationScenarios(out, { budgetMs, warmupMs, log, slices = 30 }) {
  const now = Math.floor(Date.now() / 1000);
  const token = { ...USER, sid: sid(1), auth_time: now };
  const cookie = await encode({ token, secret: SECRET, salt: SALT });
  const revokedCookie = await encode({
    token: { ...token, sid: sid(2) },
    secret: SECRET,
    salt: SALT,
  });

  const memory = MemoryRevocationStore();
  await populate(memory);
  await memory.revokeSession({
    userId: USER.sub,
    sessionId: sid(2),
    expires: new Date(Date.now() + HOUR),
  });
  const redis = await openRedis();
  try {
    const contenders = {
      none: configWith(undefined, log.logger),
      memory: configWith(memory, log.logger),
    };
    if (redis.store) {
      await populate(redis.store);
      await redis.store.revokeSession({
        userId: USER.sub,
        sessionId: sid(2),
        expires: new Date(Date.now() + HOUR),
      });
      contenders.redis = configWith(redis.store, log.logger);
    }

    // The checks: a valid cookie answers the user without re-issuing it; a revoked one answers
    // null; with Redis, one check is exactly one command.
    const notes = [];
    for (const [name, config] of Object.entries(contenders)) {
      redis.takeCommands?.();
      const valid = await answer(config, cookie);
      check(valid.status === 200, `revocation ${name}: status ${valid.status}`);
      check(
        valid.body?.user?.email === USER.email,
        `revocation ${name}: no user for a valid cookie`,
      );
      check(!valid.setCookie, `revocation ${name}: the valid cookie was re-issued`);
      if (name === "redis") {
        const sent = redis.takeCommands();
        check(
          sent.length === 1 && sent[0] === "MGET",
          `revocation redis: one check sent ${sent.join(", ") || "nothing"}, expected one MGET`,
        );
      }
      if (name !== "none") {
        const revoked = await answer(config, revokedCookie);
        check(revoked.body === null, `revocation ${name}: a revoked cookie still has a session`);
      }
      notes.push(`${name}: ok`);
    }
    log.assertClean("the revocation checks");
    console.log(`checked session-jwt-revocation-* (${notes.join("; ")})`);

    const ops = Object.fromEntries(
      Object.entries(contenders).map(([name, config]) => [name, sessionOp(config, cookie)]),
    );
    if (redis.client) {
      const keys = [`${redis.prefix}epoch:${USER.sub}`, `${redis.prefix}revoked:${USER.sub}:x`];
      const mget = () => redis.client.call("MGET", ...keys);
      ops.mget = mget;
      ops.noneThenMget = {
        prepare: ops.none.prepare,
        run: async (req) => {
          await Auth(req, contenders.none);
          await mget();
        },
      };
    }
    await warmUp(Object.values(ops), { totalMs: warmupMs });
    log.assertClean("the warm-up of the revocation scenarios");
    const result = await compare(ops, { budgetMs, slices, warmupMs: 200, baseline: "none" });
    log.assertClean("session-jwt-revocation-*");

    const us = (r) => 1e6 / r.opsPerSec;
    out.add({
      id: "session-jwt-revocation-memory",
      label: "JWT check + memory revocation store (vs no store)",
      target: 0.9,
      g: result.memory,
      a: result.none,
      ratio: result.ratios.memory,
    });
    const row = {
      id: "session-jwt-revocation-redis",
      label: "JWT check + Redis revocation store (vs no store)",
      target: null,
    };
    if (!redis.store) {
      out.skip({ ...row, reason: redis.skipped });
      return;
    }
    out.add({ ...row, g: result.redis, a: result.none, ratio: result.ratios.redis });
    // The same timings, with the check followed by one MGET as the reference.
    const paired = await compare(
      { redis: ops.redis, noneThenMget: ops.noneThenMget },
      { budgetMs, slices, warmupMs: 200 },
    );
    log.assertClean("session-jwt-revocation-redis-vs-mget");
    out.add({
      id: "session-jwt-revocation-redis-one-round-trip",
      label: "  same, vs the check without a store + one bare MGET",
      target: 0.9,
      g: paired.redis,
      a: paired.noneThenMget,
      ratio: paired.ratio,
    });
    const added = us(result.redis) - us(result.none);
    console.log(
      `revocation: the check alone ${us(result.none).toFixed(1)} µs; the memory store adds ` +
        `${(us(result.memory) - us(result.none)).toFixed(1)} µs; Redis adds ${added.toFixed(1)} µs ` +
        `per check; a bare MGET in a tight loop takes ${us(result.mget).toFixed(1)} µs, the check ` +
        `followed by one ${us(paired.noneThenMget).toFixed(1)} µs against ` +
        `${us(paired.redis).toFixed(1)} µs for the check with the Redis store ` +
        `(one command per check, checked above)`,
    );
  } finally {
    await redis.close?.();
  }
}

// Alone: `node bench/revocation.mjs` prints its rows.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const rows = [];
  const out = {
    add: ({ id, target, g, a, ratio }) =>
      rows.push(
        `${id}: ${Math.round(g.opsPerSec)} ops/s vs ${Math.round(a.opsPerSec)} for its reference, ` +
          `ratio ${ratio.toFixed(3)}${target === null ? "" : ` (target ≥ ${target}: ${ratio >= target ? "PASS" : "MISS"})`}`,
      ),
    skip: ({ id, reason }) => rows.push(`${id}: skipped (${reason})`),
  };
  const budgetMs = Number(process.env.BENCH_BUDGET_MS ?? 3000);
  const warmupMs = Number(process.env.BENCH_WARMUP_MS ?? 8000);
  revocationScenarios(out, { budgetMs, warmupMs, log: recordingLogger() })
    .then(() => console.log(rows.join("\n")))
    .catch((error) => {
      console.error(error instanceof CheckFailed ? `bench check failed: ${error.message}` : error);
      process.exit(1);
    });
}
