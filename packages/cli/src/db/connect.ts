/**
 * One connection to the app's database, through the driver the app already has: `pg`, `mysql2`
 * or `better-sqlite3`, each loaded only when its dialect is used (optional peer dependencies).
 */
import { resolve } from "node:path";
import { CliError } from "../errors.js";
import type { Dialect } from "../schema/index.js";

/** A row as the driver returns it. */
export type Row = Record<string, unknown>;

/** What the migration needs from a driver. */
export interface Connection {
  readonly dialect: Dialect;
  /** Runs one statement; the rows it returned, if any. */
  query(sql: string, params?: unknown[]): Promise<Row[]>;
  close(): Promise<void>;
}

/** The dialect a database URL names, or `undefined`. */
export function dialectOfUrl(url: string): Dialect | undefined {
  if (/^postgres(ql)?:\/\//i.test(url)) return "postgresql";
  if (/^(mysql|mariadb):\/\//i.test(url)) return "mysql";
  if (/^(file|sqlite):/i.test(url) || /\.(db|sqlite3?)$/i.test(url)) return "sqlite";
  return undefined;
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.href;
  } catch {
    return url.includes("@") ? "the database URL" : url;
  }
}

/** A SQLite URL's file path: `file:./app.db`, `sqlite:app.db`, `./app.db`. */
export function sqlitePath(url: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !/^(file|sqlite):/i.test(url)) {
    // libsql://, https:// (Turso) and the like: not a file this driver can open.
    throw new CliError(
      "only SQLite files (file:./app.db) can be migrated here; for libSQL, apply `gatehouse generate --adapter sql --dialect sqlite` with your client",
    );
  }
  const bare = url.replace(/^(sqlite|file):(\/\/)?/i, "").replace(/\?.*$/, "");
  if (bare === "" || bare === ":memory:") {
    throw new CliError(
      "a SQLite URL needs a file (file:./app.db); an in-memory database would vanish",
    );
  }
  return resolve(bare);
}

async function driver<T>(name: string, dialect: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (cause) {
    if ((cause as { code?: string })?.code === "ERR_MODULE_NOT_FOUND") {
      throw new CliError(`${dialect} needs the "${name}" driver: npm install ${name}`);
    }
    throw cause;
  }
}

interface PgModule {
  default: {
    Client: new (options: {
      connectionString: string;
    }) => {
      connect(): Promise<unknown>;
      query(sql: string, params?: unknown[]): Promise<{ rows: Row[] }>;
      end(): Promise<void>;
    };
  };
}

interface MysqlApi {
  createConnection(options: { uri: string; timezone?: string }): Promise<{
    query(sql: string, params?: unknown[]): Promise<[unknown, unknown]>;
    end(): Promise<void>;
  }>;
}
type MysqlModule = MysqlApi & { default?: MysqlApi };

interface SqliteModule {
  default: new (
    path: string,
    options?: { fileMustExist?: boolean },
  ) => {
    prepare(sql: string): {
      reader: boolean;
      all(...p: unknown[]): Row[];
      run(...p: unknown[]): unknown;
    };
    close(): void;
  };
}

/**
 * Opens a connection to `url` with the dialect's driver. A SQLite file is created unless
 * `existing` is set (a check must not leave an empty database behind a mistyped path).
 */
export async function connect(
  dialect: Dialect,
  url: string,
  options: { existing?: boolean } = {},
): Promise<Connection> {
  try {
    if (dialect === "postgresql") {
      const pg = await driver<PgModule>("pg", "PostgreSQL");
      const client = new pg.default.Client({ connectionString: url });
      await client.connect();
      return {
        dialect,
        query: async (sql, params) => (await client.query(sql, params)).rows,
        close: () => client.end(),
      };
    }
    if (dialect === "mysql") {
      const module = await driver<MysqlModule>("mysql2/promise", "MySQL");
      const mysql = module.default ?? module;
      const conn = await mysql.createConnection({
        uri: url.replace(/^mariadb:/i, "mysql:"),
        timezone: "Z",
      });
      return {
        dialect,
        query: async (sql, params) => {
          const [rows] = await conn.query(sql, params);
          return Array.isArray(rows) ? (rows as Row[]) : [];
        },
        close: () => conn.end(),
      };
    }
    const sqlite = await driver<SqliteModule>("better-sqlite3", "SQLite");
    const db = new sqlite.default(sqlitePath(url), { fileMustExist: options.existing === true });
    return {
      dialect,
      query: async (sql, params = []) => {
        const statement = db.prepare(sql);
        if (statement.reader) return statement.all(...params);
        statement.run(...params);
        return [];
      },
      close: async () => db.close(),
    };
  } catch (cause) {
    if (cause instanceof CliError) throw cause;
    // The driver's message may quote the URL; only its code and the redacted URL are shown.
    const code = (cause as { code?: string })?.code;
    throw new CliError(
      `could not connect to ${redactUrl(url)}${code ? ` (${code})` : ""}: ${describe(cause)}`,
    );
  }
}

/** A driver error's message with anything that looks like a URL's credentials cut out. */
export function describe(cause: unknown): string {
  const message = String((cause as Error)?.message ?? cause);
  return message.replace(/\/\/[^\s/@]*:[^\s/@]*@/g, "//***:***@");
}
