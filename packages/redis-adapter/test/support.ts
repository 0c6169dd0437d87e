/**
 * Shared by the test files: finding the Redis server, a key prefix per file, direct readers of
 * the stored rows, and cleaning up.
 */
import type { AdapterTestDb } from "@gatehousejs/adapter-test";
import type {
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from "@gatehousejs/core/adapters";
import { Redis, type RedisOptions } from "ioredis";
import { keyLayout } from "../src/keys.js";
import { decodeOrNull } from "../src/serialize.js";

export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** The URL without credentials, for messages. */
function shown(url: string): string {
  try {
    const u = new URL(url);
    u.username = "";
    u.password = "";
    return u.href;
  } catch {
    return "(unparsable REDIS_URL)";
  }
}

/** Why Redis cannot be used, or `null` when it can. Gives up after 2 s. */
async function probe(): Promise<string | null> {
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: () => null,
  });
  // The socket error (ECONNREFUSED, ...) says more than the "Connection is closed" that follows.
  let socketError: string | undefined;
  client.on("error", (error: Error) => {
    socketError ??= error.message;
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve("no answer within 2 s"), 2000);
  });
  const check = async () => {
    await client.connect();
    const info = await client.info("server");
    const version = /redis_version:(\d+)\.(\d+)/.exec(info);
    const [major, minor] = [Number(version?.[1] ?? 0), Number(version?.[2] ?? 0)];
    if (major < 6 || (major === 6 && minor < 2)) {
      return `Redis ${major}.${minor} is older than 6.2 (GETDEL, SET PXAT)`;
    }
    return null;
  };
  try {
    return await Promise.race([
      check().catch((error: unknown) => socketError ?? String(error)),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}

/**
 * Whether the file's tests must be skipped: prints the reason when Redis is unreachable, and
 * throws instead under `CI=true`, where a missing server is a failure.
 */
export async function redisUnavailable(file: string): Promise<boolean> {
  const reason = await probe();
  if (reason === null) return false;
  const message = `Redis at ${shown(REDIS_URL)} is not usable: ${reason.replace(/\.$/, "")}`;
  if (process.env.CI === "true") throw new Error(`${message} (CI=true, so this fails)`);
  console.warn(`[redis-adapter] ${file}: skipped. ${message}. Set REDIS_URL to run it.`);
  return true;
}

/** A key prefix no other test file or run uses. */
export function uniquePrefix(name: string): string {
  return `gatehouse-test:${name}:${crypto.randomUUID()}:`;
}

/** An ioredis client that connects on its first command. */
export function ioredis(options: RedisOptions = {}): Redis {
  return new Redis(REDIS_URL, { lazyConnect: true, ...options });
}

/** Every key under `prefix` (SCAN, never KEYS). */
export async function keysUnder(client: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    found.push(...keys);
    cursor = next;
  } while (cursor !== "0");
  return found;
}

/** Deletes every key under `prefix`. */
export async function deleteKeysUnder(client: Redis, prefix: string): Promise<void> {
  const keys = await keysUnder(client, prefix);
  for (let i = 0; i < keys.length; i += 500) await client.del(...keys.slice(i, i + 500));
}

/** Readers of the stored rows that bypass the adapter, for `runAdapterTests`. */
export function readers(client: Redis, prefix: string): AdapterTestDb {
  const key = keyLayout(prefix);
  const read = async <T>(k: string) => decodeOrNull<T>(await client.get(k));
  return {
    user: (id) => read<AdapterUser>(key.user(id)),
    account: (a) => read<AdapterAccount>(key.account(a.provider, a.providerAccountId)),
    session: (token) => read<AdapterSession>(key.session(token)),
    verificationToken: (t) => read<VerificationToken>(key.verificationToken(t.identifier, t.token)),
    authenticator: (id) => read<AdapterAuthenticator>(key.authenticator(id)),
  };
}

const DAY = 86_400_000;

/** A fresh user row. */
export function newUser(overrides: Partial<AdapterUser> = {}): AdapterUser {
  const tag = crypto.randomUUID();
  return {
    id: crypto.randomUUID(),
    email: `redis-${tag}@example.com`,
    emailVerified: null,
    name: "Redis Test",
    image: null,
    ...overrides,
  };
}

/** A fresh OAuth account row for `userId`. */
export function newAccount(
  userId: string,
  overrides: Partial<AdapterAccount> = {},
): AdapterAccount {
  return {
    userId,
    type: "oauth",
    provider: "redis-test",
    providerAccountId: crypto.randomUUID(),
    access_token: crypto.randomUUID(),
    expires_at: Math.floor(Date.now() / 1000) + 3600,
    token_type: "bearer",
    ...overrides,
  };
}

/** A fresh session row for `userId`, expiring `ms` from now (default 30 days). */
export function newSession(userId: string, ms = 30 * DAY): AdapterSession {
  return { sessionToken: crypto.randomUUID(), userId, expires: new Date(Date.now() + ms) };
}
