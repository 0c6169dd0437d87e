/**
 * Every real store the adapters support, opened the way an app would open it, each in a place of
 * its own (a fresh PostgreSQL schema, a fresh Redis key prefix, a fresh in-process database) and
 * counted directly, bypassing the adapter.
 *
 * Servers (PostgreSQL at `DATABASE_URL`, Redis at `REDIS_URL`) are probed once per test file.
 * Outside CI an unreachable server skips its stores' blocks with a printed reason; with
 * `CI=true` the blocks run and fail with that reason (see {@link storeBlock}).
 */
import { randomBytes, randomUUID } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import type { Adapter } from "@gatehousejs/core/adapters";
import { gatehouseEntities, MikroOrmAdapter } from "@gatehousejs/mikro-orm-adapter";
import { migrate, PostgresAdapter, type Queryable } from "@gatehousejs/pg-adapter";
import { RedisAdapter } from "@gatehousejs/redis-adapter";
import { MikroORM as PostgresOrm } from "@mikro-orm/postgresql";
import { MikroORM as SqliteOrm } from "@mikro-orm/sqlite";
import { Redis } from "ioredis";
import { Client, Pool } from "pg";
import { afterAll, beforeAll, describe } from "vitest";

export const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
export const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const PROBE_MS = 2000;

/** Row counts read straight from the store. */
export interface Counts {
  users: number;
  accounts: number;
  sessions: number;
}

/** One opened store: the adapter over it, direct counts, and how to remove everything. */
export interface OpenStore {
  adapter: Adapter;
  counts(): Promise<Counts>;
  /** Drops the schema / deletes the keys, then closes the connections. */
  close(): Promise<void>;
}

export type Server = "PostgreSQL" | "Redis";

export interface StoreKind<S extends OpenStore = OpenStore> {
  name: string;
  /** The server this store needs, if any (PGlite and SQLite run in-process). */
  server?: Server;
  open(): Promise<S>;
}

/** The URL without its password, for messages. */
function shown(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.href;
  } catch {
    return "(an unparsable URL)";
  }
}

/** Rejects with "no answer" when `work` takes longer than {@link PROBE_MS}. */
async function withinProbeTime(work: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${PROBE_MS} ms`)), PROBE_MS);
  });
  try {
    await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function probePostgres(): Promise<string | undefined> {
  const client = new Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: PROBE_MS });
  client.on("error", () => {});
  try {
    await withinProbeTime(client.connect().then(() => client.query("SELECT 1")));
    return undefined;
  } catch (error) {
    return `PostgreSQL at ${shown(DATABASE_URL)} is unreachable (${(error as Error).message})`;
  } finally {
    client.end().catch(() => {});
  }
}

async function probeRedis(): Promise<string | undefined> {
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: PROBE_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  let socketError: string | undefined;
  client.on("error", (error: Error) => {
    socketError ??= error.message;
  });
  try {
    await withinProbeTime(client.connect().then(() => client.ping()));
    return undefined;
  } catch (error) {
    const why = socketError ?? (error as Error).message;
    return `Redis at ${shown(REDIS_URL)} is unreachable (${why})`;
  } finally {
    client.disconnect();
  }
}

const probes = new Map<Server, Promise<string | undefined>>();

/** Why `server` cannot be used, or `undefined`; probed once per test file. */
export function serverUnavailable(server: Server): Promise<string | undefined> {
  let probe = probes.get(server);
  if (!probe) {
    probe = server === "PostgreSQL" ? probePostgres() : probeRedis();
    probes.set(server, probe);
  }
  return probe;
}

/**
 * A `describe` block for one store. When its server is unreachable: outside CI the block is
 * skipped and the reason printed; with `CI=true` the block runs and its `beforeAll` fails with
 * the reason, so every test of the block is reported failed (the other stores still run).
 */
export async function storeBlock<S extends OpenStore>(
  file: string,
  kind: StoreKind<S>,
  body: (store: () => S) => void,
): Promise<void> {
  const reason = kind.server ? await serverUnavailable(kind.server) : undefined;
  const ci = process.env.CI === "true";
  if (reason && !ci) {
    const env = kind.server === "Redis" ? "REDIS_URL" : "DATABASE_URL";
    console.warn(
      `[integration] ${file}: skipping "${kind.name}": ${reason}. Set ${env} to run it.`,
    );
  }
  describe.skipIf(reason !== undefined && !ci)(kind.name, () => {
    let store: S | undefined;
    beforeAll(async () => {
      if (reason) throw new Error(`${reason}; CI=true, so this fails`);
      store = await kind.open();
    });
    afterAll(async () => {
      await store?.close();
    });
    body(() => {
      if (!store) throw new Error(`${kind.name} was not opened`);
      return store;
    });
  });
}

/** A schema name no other run uses. */
export const freshSchema = (tag: string): string =>
  `gh_it_${tag}_${randomBytes(5).toString("hex")}`;

/** An `application_name` no other run uses, to find a pool's backends in `pg_stat_activity`. */
export const freshAppName = (tag: string): string =>
  `gatehouse-it-${tag}-${randomBytes(5).toString("hex")}`;

const toCounts = (row: Record<string, unknown> | undefined): Counts => ({
  users: Number(row?.["users"]),
  accounts: Number(row?.["accounts"]),
  sessions: Number(row?.["sessions"]),
});

/** The three counts of a PostgreSQL or SQLite schema, in one statement; `table` qualifies names. */
const countsSql = (table: (name: string) => string) =>
  `select (select count(*) from ${table("users")}) as users,
          (select count(*) from ${table("accounts")}) as accounts,
          (select count(*) from ${table("sessions")}) as sessions`;

async function sqlCounts(client: Queryable, schema: string): Promise<Counts> {
  const { rows } = await client.query(countsSql((t) => `"${schema}"."${t}"`));
  return toCounts(rows[0] as Record<string, unknown> | undefined);
}

/** `@gatehousejs/pg-adapter` on the PostgreSQL server, through a `pg` Pool, in a fresh schema. */
export const pgServer: StoreKind = {
  name: "pg-adapter on the PostgreSQL server",
  server: "PostgreSQL",
  async open() {
    const schema = freshSchema("pg");
    const pool = new Pool({ connectionString: DATABASE_URL, max: 20 });
    pool.on("error", () => {}); // an idle connection closed by the server must not crash the run
    await migrate(pool, { schema });
    return {
      adapter: PostgresAdapter(pool, { schema }),
      counts: () => sqlCounts(pool, schema),
      async close() {
        await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await pool.end();
      },
    };
  },
};

/** `@gatehousejs/pg-adapter` on PGlite (in-process), in a fresh instance. */
export const pgLite: StoreKind = {
  name: "pg-adapter on PGlite",
  async open() {
    const db = new PGlite();
    await migrate(db);
    return {
      adapter: PostgresAdapter(db),
      counts: () => sqlCounts(db, "public"),
      close: () => db.close(),
    };
  },
};

/** Every key under `prefix` (SCAN, never KEYS). */
async function keysUnder(client: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    found.push(...keys);
    cursor = next;
  } while (cursor !== "0");
  return found;
}

/** `@gatehousejs/redis-adapter` on the Redis server, under a fresh key prefix. */
export const redis: StoreKind = {
  name: "redis-adapter on the Redis server",
  server: "Redis",
  async open() {
    const prefix = `gatehouse-it:${randomUUID()}:`;
    const client = new Redis(REDIS_URL);
    return {
      adapter: RedisAdapter(client, { prefix }),
      // The documented layout: `user:<id>` (ids escaped, so no ':'), `account:<provider>:<id>`,
      // `session:<token>`; index keys (`user:email:…`, `user:<id>:sessions`, …) are not rows.
      async counts() {
        const keys = (await keysUnder(client, prefix)).map((key) => key.slice(prefix.length));
        return {
          users: keys.filter((k) => /^user:[^:]+$/.test(k)).length,
          accounts: keys.filter((k) => k.startsWith("account:")).length,
          sessions: keys.filter((k) => k.startsWith("session:")).length,
        };
      },
      async close() {
        const keys = await keysUnder(client, prefix);
        for (let i = 0; i < keys.length; i += 500) await client.del(...keys.slice(i, i + 500));
        await client.quit();
      },
    };
  },
};

/** The part of a MikroORM instance the counts use. */
type Orm = { em: { getConnection(): { execute(sql: string): Promise<unknown> } } };

async function ormCounts(orm: Orm, table: (name: string) => string): Promise<Counts> {
  const rows = (await orm.em.getConnection().execute(countsSql(table))) as Record<
    string,
    unknown
  >[];
  return toCounts(rows[0]);
}

export interface MikroPostgres extends OpenStore {
  orm: PostgresOrm;
  schema: string;
  applicationName: string;
  /** What knex (under MikroORM) warned about, such as "Connection Error: …"; not printed. */
  driverWarnings: string[];
  /** How many of the pool's `pg` connections are still open on this side (not yet `end`ed). */
  openConnections(): number;
}

/**
 * `@gatehousejs/mikro-orm-adapter` on the PostgreSQL server, in a fresh schema made by
 * `orm.schema.createSchema()`. Every connection of its pool carries `applicationName`.
 */
export async function openMikroPostgres(
  options: { applicationName?: string; poolMax?: number } = {},
): Promise<MikroPostgres> {
  const schema = freshSchema("mikro");
  const applicationName = options.applicationName ?? freshAppName("mikro");
  const driverWarnings: string[] = [];
  const open = new Set<unknown>();
  // knex's pool hook, given each new `pg` Client: count it until the driver sees it close.
  const afterCreate = (connection: Client, done: (error: Error | null, c: Client) => void) => {
    open.add(connection);
    connection.once("end", () => open.delete(connection));
    done(null, connection);
  };
  const orm = await PostgresOrm.init({
    clientUrl: DATABASE_URL,
    schema,
    entities: [...gatehouseEntities.list],
    pool: { min: 0, max: options.poolMax ?? 20, afterCreate },
    driverOptions: {
      connection: { application_name: applicationName },
      log: { warn: (message: unknown) => driverWarnings.push(String(message)) },
    },
  });
  await orm.schema.createSchema();
  return {
    orm,
    schema,
    applicationName,
    driverWarnings,
    openConnections: () => open.size,
    adapter: MikroOrmAdapter(orm),
    counts: () => ormCounts(orm, (t) => `"${schema}"."${t}"`),
    async close() {
      await orm.em.getConnection().execute(`drop schema if exists "${schema}" cascade`);
      await orm.close(true);
    },
  };
}

/** `@gatehousejs/mikro-orm-adapter` on the PostgreSQL server. */
export const mikroPostgres: StoreKind = {
  name: "mikro-orm-adapter on the PostgreSQL server",
  server: "PostgreSQL",
  open: () => openMikroPostgres(),
};

/** `@gatehousejs/mikro-orm-adapter` on in-memory SQLite. */
export const mikroSqlite: StoreKind = {
  name: "mikro-orm-adapter on SQLite",
  async open() {
    const orm = await SqliteOrm.init({ dbName: ":memory:", entities: [...gatehouseEntities.list] });
    await orm.schema.createSchema();
    return {
      adapter: MikroOrmAdapter(orm),
      counts: () => ormCounts(orm, (t) => `"${t}"`),
      close: () => orm.close(true),
    };
  },
};

/** Every store, in the order the tests run them. */
export const allStores: StoreKind[] = [pgServer, pgLite, redis, mikroPostgres, mikroSqlite];
