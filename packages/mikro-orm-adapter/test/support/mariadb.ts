/**
 * The MariaDB server of the tests: each test file gets a database of its own, created for the
 * run and dropped at its end, so files and runs never see each other's rows.
 */
import { randomBytes } from "node:crypto";
import type { AdapterTestDb } from "@gatehousejs/adapter-test";
import { MikroORM, type Options } from "@mikro-orm/mariadb";
import { gatehouseEntities } from "../../src/index.js";
import { sqlReaders, unreachable } from "./databases.js";

/** The MariaDB (or MySQL) server: `MARIADB_URL`, or the local server of the CI services. */
export const mariadbUrl = process.env.MARIADB_URL ?? "mysql://root@127.0.0.1:3306/test";

/** An ORM on a new database `gatehouse_mikro_<random>`, or why the server cannot be used. */
export interface MariaDbTestOrm {
  orm: MikroORM;
  /** The options `orm` was made with, to open a second pool on the same database. */
  options: Options;
  /** Why the tests skip; in CI (`CI=true`) an unreachable server throws instead. */
  skip: string | undefined;
  /** Drops the database and closes the ORM. */
  drop(): Promise<void>;
}

export async function mariadbTestOrm(extra: Partial<Options> = {}): Promise<MariaDbTestOrm> {
  const dbName = `gatehouse_mikro_${randomBytes(6).toString("hex")}`;
  const clientUrl = Object.assign(new URL(mariadbUrl), { pathname: `/${dbName}` }).href;
  const options: Options = {
    clientUrl,
    entities: [...gatehouseEntities.list],
    pool: { min: 0, max: 10 },
    // `datetime` has no time zone: dates are written and read in UTC, whatever the process's TZ.
    forceUtcTimezone: true,
    // Connect in the probe below, so that an unreachable server skips (or, in CI, fails) clearly.
    connect: false,
    ...extra,
  };
  const orm = await MikroORM.init(options);
  const skip = await unreachable(`MariaDB at ${new URL(mariadbUrl).host}`, async () => {
    // Creates the database through a connection to the server without one.
    await orm.schema.ensureDatabase({ create: false });
    await orm.connect();
    const check = await orm.checkConnection();
    if (!check.ok) throw new Error(check.reason);
  });
  // Not awaited: a silent server would hold the close until its connection attempt gives up.
  if (skip) orm.close(true).catch(() => {});
  const drop = async () => {
    await orm.schema.dropDatabase(dbName);
    await orm.close(true);
  };
  return { orm, options, skip, drop };
}

/** The part of a MikroORM instance the readers use. */
interface Orm {
  em: {
    getConnection(): { execute(sql: string, params?: unknown[]): Promise<unknown> };
  };
}

// MikroORM reads MariaDB's `datetime` as text ("2026-01-02 03:04:05.678"), in UTC here
// (`forceUtcTimezone`); `new Date` would read that text in the process's time zone.
const DATETIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?$/;
const utc = (row: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(row).map(([k, v]) => [
      k,
      typeof v === "string" && DATETIME.test(v) ? new Date(`${v.replace(" ", "T")}Z`) : v,
    ]),
  );

/**
 * The readers of {@link sqlReaders} on MariaDB. They quote identifiers as standard SQL does
 * (`"id"`), which MariaDB reads as strings unless `ANSI_QUOTES` is on, so their double quotes
 * become backticks (their queries hold no string literals, only identifiers and `?`
 * parameters); and dates come back as the UTC they were written in.
 */
export function mariadbReaders(orm: Orm): AdapterTestDb {
  const backticks: Orm = {
    em: {
      getConnection: () => ({
        execute: async (sql, params) => {
          const rows = await orm.em.getConnection().execute(sql.replaceAll('"', "`"), params);
          return (rows as Record<string, unknown>[]).map(utc);
        },
      }),
    },
  };
  return sqlReaders(backticks, (table) => `"${table}"`);
}
