/**
 * What the adapter needs from a driver, and how it names things in SQL.
 */

/**
 * Any PostgreSQL client with a promise-returning `query(text, params)` whose result has `rows`:
 * a `pg` `Pool` or `Client`, or a PGlite instance. Parameters are positional (`$1`, `$2`, …).
 */
export interface Queryable {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** Options shared by {@link PostgresAdapter} and {@link migrate}. */
export interface PostgresOptions {
  /**
   * The PostgreSQL schema that holds the tables. Default `"public"`. Must match
   * `/^[A-Za-z_][A-Za-z0-9_]*$/`; it is always quoted in SQL, so it is case-sensitive.
   */
  schema?: string;
}

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Validates a schema name and returns it quoted, ready to prefix table names. */
export function quoteSchema(schema = "public"): string {
  if (typeof schema !== "string" || !SCHEMA_NAME.test(schema) || schema.length > 63) {
    // The name is not echoed: it came from configuration and is shown as such.
    throw new TypeError(
      "PostgresAdapter: options.schema must be 1 to 63 letters, digits or underscores, not starting with a digit",
    );
  }
  return `"${schema}"`;
}

/** A row as the driver returns it. */
export type Row = Record<string, unknown>;

/** node-postgres (`pg`) Pools and Clients take a query config, and so named statements. */
interface NamedQueryable {
  query(config: { name: string; text: string; values?: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * Whether the client is node-postgres: a `pg` Pool or Client has `connect`, PGlite does not.
 * Only node-postgres gets named statements; everything else gets plain `query(text, params)`.
 */
export function isNodePostgres(client: Queryable): boolean {
  return typeof (client as { connect?: unknown }).connect === "function";
}

/**
 * A single node-postgres `Client` runs one query at a time; queueing concurrent ones inside the
 * driver is deprecated (and gone in pg 9). The adapter queues its own calls on such a client.
 * A Pool (it has `totalCount`) and PGlite need nothing.
 */
export function serialized(client: Queryable): Queryable {
  if (!isNodePostgres(client) || "totalCount" in client) return client;
  let tail: Promise<unknown> = Promise.resolve();
  const query = (...args: unknown[]) => {
    const run = tail.then(() =>
      (client.query as (...a: unknown[]) => Promise<{ rows: unknown[] }>).apply(client, args),
    );
    tail = run.catch(() => undefined);
    return run;
  };
  return { query, connect: () => undefined } as unknown as Queryable;
}

const names = new Map<string, string>();

/**
 * A stable name for a statement's text: PostgreSQL then parses and plans it once per connection
 * instead of on every call (the planning of the session join costs more than running it).
 * Different texts (another schema, another set of columns) get different names.
 */
function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    // FNV-1a over the text, twice with different seeds: 64 bits, no crypto needed.
    let a = 0x811c9dc5;
    let b = 0x01000193;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193) >>> 0;
      b = Math.imul(b ^ c, 0x811c9dc5) >>> 0;
    }
    name = `gatehouse_${a.toString(36)}_${b.toString(36)}`;
    if (names.size > 1000) names.clear();
    names.set(text, name);
  }
  return name;
}

/** Runs `text` and returns its rows. Errors from the driver are passed on untouched. */
export async function rowsOf(
  client: Queryable,
  text: string,
  params?: unknown[],
  named = false,
): Promise<Row[]> {
  const result = named
    ? await (client as unknown as NamedQueryable).query({
        name: statementName(text),
        text,
        values: params,
      })
    : await client.query(text, params);
  return result.rows as Row[];
}
