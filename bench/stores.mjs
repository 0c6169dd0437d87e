/**
 * The real stores for the database-session scenario: PostgreSQL at DATABASE_URL for both
 * libraries (Gatehouse's `@gatehousejs/pg-adapter` and @auth/core's `@auth/pg-adapter`, each in a
 * schema of its own), and for Gatehouse alone PGlite (in-process PostgreSQL) and Redis at
 * REDIS_URL. A server that cannot be reached is skipped with its reason; any other failure
 * stops the bench. `close()` drops the schemas and deletes the Redis keys.
 */
import { readFile } from "node:fs/promises";
import AuthjsPostgresAdapter from "@auth/pg-adapter";
import { PGlite } from "@electric-sql/pglite";
import { migrate, PostgresAdapter } from "@gatehousejs/pg-adapter";
import { RedisAdapter } from "@gatehousejs/redis-adapter";
import { Redis } from "ioredis";
import pg from "pg";
import { countCalls, databaseContender, seed } from "./database.mjs";

const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** Where a URL points, without its credentials: safe to print. */
const where = (url) => {
  try {
    const { host, pathname } = new URL(url);
    return `${host}${pathname === "/" ? "" : pathname}`;
  } catch {
    return "(unparsable URL)";
  }
};
const reasonOf = (error) => error?.code ?? error?.message ?? String(error);

/** "SELECT sessions JOIN users": the statement's verb and tables, to name a counted query. */
function sqlLabel([query]) {
  // node-postgres gets named statements: a `{ name, text, values }` config, not a string.
  const text = typeof query === "string" ? query : query.text;
  const verb = text.trim().split(/\s+/)[0].toUpperCase();
  const tables = [...text.matchAll(/\b(?:from|into|update|join)\s+(?:"?\w+"?\.)?"?(\w+)"?/gi)];
  return [verb, tables.map((m) => m[1]).join(" JOIN ")].filter(Boolean).join(" ");
}

const countQueries = (client) => (once) => () => countCalls(client, "query", sqlLabel, once);

async function postgresReachable() {
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return null;
  } catch (error) {
    return `PostgreSQL at ${where(DATABASE_URL)} unreachable (${reasonOf(error)})`;
  } finally {
    await client.end().catch(() => {});
  }
}

export async function openStores({ base, logger }) {
  const sessionToken = crypto.randomUUID();
  const tag = `${process.pid}_${Date.now().toString(36)}`;
  const cleanups = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch((error) => console.warn(`store cleanup failed: ${reasonOf(error)}`));
    }
  };
  const contender = (name, adapter, probe) =>
    databaseContender({ name, adapter, sessionToken, base, logger, probe });
  const stores = {
    pg: { skipped: null, gatehouse: null, authjs: null },
    pglite: { skipped: null, gatehouse: null },
    redis: { skipped: null, gatehouse: null },
    close,
  };

  try {
    // PostgreSQL server: both libraries, each in its own schema.
    stores.pg.skipped = await postgresReachable();
    if (!stores.pg.skipped) {
      const schema = `bench_gatehouse_${tag}`;
      const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
      cleanups.push(async () => {
        await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await pool.end();
      });
      await migrate(pool, { schema });
      const adapter = PostgresAdapter(pool, { schema });
      await seed(adapter, sessionToken);
      stores.pg.gatehouse = contender("Gatehouse", adapter, countQueries(pool));

      const authjsSchema = `bench_authjs_${tag}`;
      const authjsPool = new pg.Pool({
        connectionString: DATABASE_URL,
        max: 4,
        options: `-c search_path=${authjsSchema}`,
      });
      cleanups.push(async () => {
        await authjsPool.query(`DROP SCHEMA IF EXISTS "${authjsSchema}" CASCADE`);
        await authjsPool.end();
      });
      await authjsPool.query(`CREATE SCHEMA "${authjsSchema}"`);
      await authjsPool.query(
        await readFile(new URL("./authjs-pg-schema.sql", import.meta.url), "utf8"),
      );
      const authjsAdapter = AuthjsPostgresAdapter(authjsPool);
      await seed(authjsAdapter, sessionToken, { withUserId: false });
      stores.pg.authjs = contender("@auth/core", authjsAdapter, countQueries(authjsPool));
    }

    // PGlite: PostgreSQL compiled to WebAssembly, in this process, in memory.
    const db = new PGlite();
    cleanups.push(() => db.close());
    await migrate(db);
    const pgliteAdapter = PostgresAdapter(db);
    await seed(pgliteAdapter, sessionToken);
    stores.pglite.gatehouse = contender("Gatehouse", pgliteAdapter, countQueries(db));

    // Redis.
    const redis = new Redis(REDIS_URL, {
      lazyConnect: true,
      connectTimeout: 3000,
      maxRetriesPerRequest: 1,
      retryStrategy: () => null,
    });
    // The connection's own error (ECONNREFUSED, say) says more than the rejected connect().
    let lastError;
    redis.on("error", (error) => {
      lastError = error;
    });
    try {
      await redis.connect();
      await redis.ping();
    } catch (error) {
      redis.disconnect();
      const reason = reasonOf(lastError ?? error);
      stores.redis.skipped = `Redis at ${where(REDIS_URL)} unreachable (${reason})`;
    }
    if (!stores.redis.skipped) {
      const prefix = `gatehouse-bench:${tag}:`;
      cleanups.push(async () => {
        let cursor = "0";
        do {
          const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 500);
          if (keys.length) await redis.del(...keys);
          cursor = next;
        } while (cursor !== "0");
        await redis.quit();
      });
      const adapter = RedisAdapter(redis, { prefix });
      await seed(adapter, sessionToken);
      // Scripts are loaded on first use (EVALSHA, then EVAL once): load them before counting.
      await adapter.getSessionAndUser(sessionToken);
      const probe = (once) => () =>
        countCalls(redis, "call", ([command]) => String(command).toUpperCase(), once);
      stores.redis.gatehouse = contender("Gatehouse", adapter, probe);
    }
  } catch (error) {
    await close();
    throw error;
  }
  return stores;
}
