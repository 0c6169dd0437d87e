/**
 * The column types of the Gatehouse entities and the rules that differ per database family:
 * exact string comparison, millisecond dates and the email key on MySQL and MariaDB, the partial
 * email index elsewhere. ./entities.ts builds the schemas from them.
 * @module
 */
import { randomUUID } from "node:crypto";
import {
  DateTimeType,
  type EntityProperty,
  type Platform,
  StringType,
  TextType,
} from "@mikro-orm/core";

/**
 * MySQL or MariaDB. MikroORM's `MariaDbPlatform` extends the `MySqlPlatform` of its MySQL
 * driver; the class chain is read by name, since `@mikro-orm/knex` is not a dependency here.
 */
export function isMySqlFamily(platform: Platform): boolean {
  for (let proto = Object.getPrototypeOf(platform); proto; proto = Object.getPrototypeOf(proto)) {
    if ((proto as { constructor?: { name?: string } }).constructor?.name === "MySqlPlatform") {
      return true;
    }
  }
  return false;
}

/**
 * MySQL and MariaDB compare strings by the column's collation, and their default collations
 * ignore case (and accents): two session tokens, credential ids or provider account ids that
 * differ only in case would collide in a unique key and find each other's rows. There, every
 * string column of these tables is `utf8mb4_bin`, compared code point by code point, as
 * PostgreSQL and SQLite compare `varchar` and `text`. On other databases the column types are
 * MikroORM's own, unchanged.
 *
 * MikroORM reads a column's type without its collation, so `updateSchema` neither reports nor
 * changes the collation of a column made before (the README gives the `alter table`).
 */
const BINARY_COLLATION = "utf8mb4_bin";
const exact = (declaration: string, platform: Platform) =>
  isMySqlFamily(platform) ? `${declaration} collate ${BINARY_COLLATION}` : declaration;

/** `varchar`, compared exactly (see {@link BINARY_COLLATION}). */
export class ExactString extends StringType {
  /** Told the platform of each ORM that discovers the column (the email index reads it). */
  constructor(private readonly discovered?: (platform: Platform) => void) {
    super();
  }
  override getColumnType(prop: EntityProperty, platform: Platform): string {
    this.discovered?.(platform);
    return exact(super.getColumnType(prop, platform), platform);
  }
}

/** `text`, compared exactly (see {@link BINARY_COLLATION}). */
export class ExactText extends TextType {
  override getColumnType(prop: EntityProperty, platform: Platform): string {
    return exact(super.getColumnType(prop, platform), platform);
  }
}

/**
 * The key of a refresh lock: the provider and the account id as JSON, up to 1100 characters.
 * InnoDB keys hold at most 3072 bytes, 768 `utf8mb4` characters, so on MySQL and MariaDB the key
 * is `varbinary(3072)`: its UTF-8 bytes, compared byte by byte.
 */
export class LockKey extends StringType {
  override getColumnType(prop: EntityProperty, platform: Platform): string {
    return isMySqlFamily(platform) ? "varbinary(3072)" : super.getColumnType(prop, platform);
  }
  override convertToJSValue(value: unknown, platform: Platform): string | null | undefined {
    if (value instanceof Uint8Array) return Buffer.from(value).toString("utf8");
    return super.convertToJSValue(value as string | null | undefined, platform);
  }
}

/**
 * A date with milliseconds. MySQL and MariaDB's `datetime` keeps whole seconds unless given a
 * precision, so there it is `datetime(3)`; elsewhere MikroORM's default (`timestamptz(6)` on
 * PostgreSQL, `datetime` on SQLite, which keeps milliseconds).
 */
export class MillisecondDateTime extends DateTimeType {
  override getColumnType(prop: EntityProperty, platform: Platform): string {
    if (isMySqlFamily(platform) && !prop.length) {
      return platform.getDateTimeTypeDeclarationSQL({ length: 3 });
    }
    return super.getColumnType(prop, platform);
  }
  override getDefaultLength(platform: Platform): number {
    return isMySqlFamily(platform) ? 3 : super.getDefaultLength(platform);
  }
}

/**
 * `users.email_key` on MySQL and MariaDB: a stored generated column, `nullif(email, '')`, with
 * a unique index (`users_email_unique`). It holds the address of the rows the partial index of
 * the other databases covers and `NULL` for the others, and `NULL`s never collide, so a second
 * user with the same real address is refused as on PostgreSQL. It is `varbinary`, compared byte
 * by byte: `utf8mb4_bin` ignores trailing spaces, PostgreSQL's unique index does not.
 *
 * On other databases the property is not persisted (MikroORM tells the type its platform when it
 * discovers the entity): no column, no index, and their tables are as before.
 */
export class EmailKey extends StringType {
  override getColumnType(prop: EntityProperty, platform: Platform): string {
    if (!isMySqlFamily(platform)) {
      prop.persist = false;
      return super.getColumnType(prop, platform);
    }
    // 320 characters of up to 4 bytes; MikroORM reads the generated part off the column type.
    return `varbinary(1280) generated always as (${EMAIL_KEY_EXPRESSION}) stored`;
  }
  override convertToJSValue(value: unknown, platform: Platform): string | null | undefined {
    if (value instanceof Uint8Array) return Buffer.from(value).toString("utf8");
    return super.convertToJSValue(value as string | null | undefined, platform);
  }
}
const EMAIL_KEY_EXPRESSION = "nullif(`email`, '')";

const exactString = new ExactString();
export const exactText = new ExactText();
const dateTime = new MillisecondDateTime();

// Column names are the contract's field names, as in @gatehousejs/pg-adapter's schema, whatever
// naming strategy the ORM uses. Keys are varchar (indexable everywhere); values are text.
export const key = (fieldName: string, length = 255) =>
  ({ type: exactString, length, fieldName }) as const;
export const date = (fieldName: string) => ({ type: dateTime, fieldName }) as const;
export const nullableDate = (fieldName: string) =>
  ({ ...date(fieldName), nullable: true }) as const;
export const text = (fieldName: string) =>
  ({ type: exactText, fieldName, nullable: true }) as const;
export const generatedId = { ...key("id"), primary: true, onCreate: () => randomUUID() } as const;
// `userId` reads the relation (see the classes); the column belongs to `user`.
export const userId = { type: "string", persist: false } as const;
const quoteAnsi = (name: string) => `"${name.replaceAll('"', '""')}"`;
const quoteMySql = (name: string) => `\`${name.replaceAll("`", "``")}\``;

type Table = { name: string; schema?: string };
/**
 * The index on `users.email`, whose `""` means "no email".
 *
 * On PostgreSQL, SQLite and SQL Server: `create unique index … where "email" <> ''`, so only real
 * addresses are unique. MySQL and MariaDB have no partial indexes (nor, in MariaDB, indexes on
 * expressions), so there the index is a plain one, for lookups by email; real addresses are
 * unique through the `email_key` column instead (see {@link EmailKey}).
 *
 * MikroORM does not tell an index expression its platform: `families` holds the SQL families of
 * the ORMs that discovered the email column of this set of schemas.
 * MikroORM 6 calls this with `(table, columns, name)`, MikroORM 7 with `(columns, table, name)`.
 */
export function emailIndex(families: ReadonlySet<"mysql" | "standard">) {
  return (first: object, second: object, name: string): string => {
    const table = ("email" in first ? second : first) as Table;
    if (families.size > 1) {
      throw new Error(
        "@gatehousejs/mikro-orm-adapter: these entities were discovered by a MySQL or MariaDB ORM and by another; call defineGatehouseEntities() once for each",
      );
    }
    const mysql = families.has("mysql");
    const quote = mysql ? quoteMySql : quoteAnsi;
    const qualified = table.schema
      ? `${quote(table.schema)}.${quote(table.name)}`
      : quote(table.name);
    if (mysql) return `create index ${quote(name)} on ${qualified} (${quote("email")})`;
    return `create unique index ${quote(name)} on ${qualified} ("email") where "email" <> ''`;
  };
}
