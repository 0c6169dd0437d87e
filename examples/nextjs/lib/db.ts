/**
 * The app's database: embedded PGlite under `.data/pglite` by default, or the PostgreSQL server
 * of `DATABASE_URL`. Opened and migrated once per process, on first use: Gatehouse's tables
 * (the adapter's, the revocation store's and the security log's), the app's own table of
 * password hashes, then, in demo mode only, the demo account.
 */
import { resolve } from "node:path";
import { hashPassword } from "@gatehousejs/core/password";
import {
  migrate,
  PostgresRevocationStore,
  PostgresSecurityEventStore,
  type Queryable,
} from "@gatehousejs/pg-adapter";
import { isDemo } from "./env";

/** The demo account, seeded in demo mode only (a deployed app must not have a known password). */
export const DEMO_USER = {
  email: "demo@example.com",
  password: "gatehouse-demo",
  name: "Demo User",
} as const;

const APP_SCHEMA = `
CREATE TABLE IF NOT EXISTS app_passwords (
  "userId" text PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  hash text NOT NULL
);`;

async function open(): Promise<Queryable> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const { default: pg } = await import("pg");
    const pool = new pg.Pool({ connectionString: url });
    pool.on("error", (error) =>
      console.error("[db] idle PostgreSQL connection lost:", error.message),
    );
    return pool;
  }
  const { PGlite } = await import("@electric-sql/pglite");
  // A folder named at run time: Next's file tracing must not follow it into the project.
  return PGlite.create(resolve(/*turbopackIgnore: true*/ process.env.PGLITE_DIR ?? ".data/pglite"));
}

async function seed(client: Queryable): Promise<void> {
  const found = await client.query("SELECT id FROM users WHERE email = $1", [DEMO_USER.email]);
  if (found.rows.length > 0) return;
  const id = crypto.randomUUID();
  await client.query(
    `INSERT INTO users (id, name, email, "emailVerified") VALUES ($1, $2, $3, now()) ON CONFLICT DO NOTHING`,
    [id, DEMO_USER.name, DEMO_USER.email],
  );
  await client.query(
    `INSERT INTO app_passwords ("userId", hash) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
    [id, await hashPassword(DEMO_USER.password)],
  );
}

async function start(): Promise<Queryable> {
  const client = await open();
  await migrate(client);
  await PostgresRevocationStore(client).migrate();
  await PostgresSecurityEventStore(client).migrate();
  await client.query(APP_SCHEMA);
  if (isDemo()) await seed(client);
  return client;
}

// Next.js loads server code in more than one bundle (the proxy, the pages, the route handlers),
// each with its own copy of this module: the one database of the process is kept on globalThis,
// since PGlite must not be opened twice on the same folder.
const KEY = Symbol.for("gatehouse-example-nextjs.database");
type Holder = { [KEY]?: Promise<Queryable> };

function client(): Promise<Queryable> {
  const holder = globalThis as Holder;
  holder[KEY] ??= start();
  return holder[KEY];
}

/** The database, opened and migrated on first use. */
export const db: Queryable = {
  async query(text, params) {
    return (await client()).query(text, params);
  },
};

/** Revoked JWT sessions and the JWT sessions to list, kept in the database. */
export const revocationStore = PostgresRevocationStore(db);

/** The security activity log, kept in the database. */
export const securityEventStore = PostgresSecurityEventStore(db);
