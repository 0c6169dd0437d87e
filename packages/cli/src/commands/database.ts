/**
 * The database a command works on: `--url` or `DATABASE_URL`, its dialect from `--dialect` or
 * the URL's scheme.
 */
import { type Connection, connect, dialectOfUrl } from "../db/connect.js";
import { CliError } from "../errors.js";
import type { Dialect } from "../schema/index.js";
import type { Io } from "./io.js";

/** The options naming a database. */
export interface DatabaseOptions {
  url?: string;
  dialect?: Dialect;
  schema?: string;
}

/** Refuses a `--schema` that is not a plain identifier (it is quoted into SQL). */
export function checkSchemaName(schema: string | undefined): void {
  if (schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new CliError(
      "--schema must be 1 to 63 letters, digits or underscores, not starting with a digit",
    );
  }
}

/** The URL and dialect to use, or `undefined` when none is given. */
export function databaseOf(
  options: DatabaseOptions,
  io: Io,
): { url: string; dialect: Dialect } | undefined {
  if (options.schema !== undefined && !/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(options.schema)) {
    throw new CliError(
      "--schema must be 1 to 63 letters, digits or underscores, not starting with a digit",
    );
  }
  const url = options.url ?? io.env.DATABASE_URL;
  if (!url) return undefined;
  const dialect = options.dialect ?? dialectOfUrl(url);
  if (!dialect) {
    throw new CliError("cannot tell the database's dialect from its URL: pass --dialect");
  }
  return { url, dialect };
}

/** Opens the database, runs `work`, closes it. */
export async function withDatabase<T>(
  db: { url: string; dialect: Dialect },
  work: (conn: Connection) => Promise<T>,
  options: { existing?: boolean } = {},
): Promise<T> {
  const conn = await connect(db.dialect, db.url, options);
  try {
    return await work(conn);
  } finally {
    await conn.close().catch(() => {});
  }
}
