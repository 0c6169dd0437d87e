/**
 * The Gatehouse tables as MikroORM entities, defined with `EntitySchema`: no decorators, no
 * `reflect-metadata`, no `ts-morph`.
 *
 * Relations point at their targets through the schemas built together by
 * {@link defineGatehouseEntities} (MikroORM 7 no longer resolves entity names given as strings),
 * so an extended `User` is what `Account.user` and `Session.user` refer to.
 * @module
 */
import { randomUUID } from "node:crypto";
import type { AdapterAccountType } from "@gatehousejs/core/adapters";
import type { AuthorizationDetails } from "@gatehousejs/core/types";
import {
  BigIntType,
  type Collection,
  DateTimeType,
  type EntityClass,
  type EntityProperty,
  EntitySchema,
  type EntitySchemaMetadata,
  type OptionalProps,
  type Platform,
  StringType,
  TextType,
} from "@mikro-orm/core";

// `user` is unset only while MikroORM builds an entity, which reads every property.
const userIdOf = (owned: { user?: User }) => owned.user?.id as string;

/**
 * A user. `email` is `""` when the user has none (never unique, never found by email);
 * `emailVerified` is `null` until the user signs in through an email provider.
 */
export class User {
  declare [OptionalProps]?:
    | "email"
    | "emailVerified"
    | "name"
    | "image"
    | "accounts"
    | "sessions"
    | "emailKey";
  declare id: string;
  declare name?: string | null;
  declare email: string;
  declare emailVerified: Date | null;
  declare image?: string | null;
  declare accounts: Collection<Account>;
  declare sessions: Collection<Session>;
  /**
   * MySQL and MariaDB only: the `email_key` column the database computes from `email` (the
   * address, or `null` for `""`), whose unique index makes real addresses unique there. Never
   * written, never in the adapter's rows; on other databases there is no such column.
   */
  declare readonly emailKey?: string | null;
}

/** A link between a user and a provider account, with the provider's token set. */
export class Account {
  declare [OptionalProps]?: "id" | "userId";
  declare id: string;
  declare user: User;
  declare type: AdapterAccountType;
  declare provider: string;
  declare providerAccountId: string;
  declare refresh_token?: string | null;
  declare access_token?: string | null;
  /** Seconds since the epoch. */
  declare expires_at?: number | null;
  declare token_type?: Lowercase<string> | null;
  declare scope?: string | null;
  declare id_token?: string | null;
  declare session_state?: unknown;
  declare authorization_details?: AuthorizationDetails[] | null;
  /** `"RefreshTokenError"` after the provider refused the refresh token; `null` otherwise. */
  declare error?: "RefreshTokenError" | null;
  /** A password account's hash (the password provider); `null` on other accounts. */
  declare passwordHash?: string | null;
  /** The id of {@link Account.user}, without loading the user. */
  get userId(): string {
    return userIdOf(this);
  }
}

/** A database session. */
export class Session {
  declare [OptionalProps]?:
    | "id"
    | "userId"
    | "createdAt"
    | "lastSeenAt"
    | "provider"
    | "providerType"
    | "client"
    | "ip"
    | "providerSid"
    | "error"
    | "factors";
  declare id: string;
  declare user: User;
  declare sessionToken: string;
  declare expires: Date;
  /** Session records (nullable: rows from before them read back as `null`). */
  declare createdAt?: Date | null;
  declare lastSeenAt?: Date | null;
  declare provider?: string | null;
  declare providerType?: string | null;
  declare client?: string | null;
  declare ip?: string | null;
  /** The OpenID provider's `sid` of the sign-in, for federated logout; left out when `null`. */
  declare providerSid?: string | null;
  /** `"RefreshTokenError"` after a refused refresh token; left out when `null`. */
  declare error?: string | null;
  /** What the sign-in proved (RFC 8176 `amr` values, space-separated); left out when `null`. */
  declare factors?: string | null;
  /** The id of {@link Session.user}, without loading the user. */
  get userId(): string {
    return userIdOf(this);
  }
}

/** A one-time email sign-in token, stored hashed; its key is `(identifier, token)`. */
export class VerificationToken {
  declare [OptionalProps]?: "tries";
  declare identifier: string;
  declare token: string;
  declare expires: Date;
  /** Tries of a sign-in code so far (`countVerificationTokenTry`); never in the adapter's rows. */
  declare tries?: number;
}

/**
 * A short lock on an account while its provider token is refreshed (`lockAccount`): one row per
 * held lock, free again once `expires` (milliseconds since the epoch) has passed.
 */
export class AccountLock {
  declare key: string;
  declare holder: string;
  declare expires: number;
}

/** A WebAuthn credential of a user. */
export class Authenticator {
  declare [OptionalProps]?: "transports" | "userId";
  declare credentialID: string;
  declare user: User;
  declare providerAccountId: string;
  declare credentialPublicKey: string;
  declare counter: number;
  declare credentialDeviceType: string;
  declare credentialBackedUp: boolean;
  declare transports?: string | null;
  /** The id of {@link Authenticator.user}, without loading the user. */
  get userId(): string {
    return userIdOf(this);
  }
}

/** How to extend one entity: your subclass, the columns it adds, and its table. */
export interface GatehouseEntityExtension<Base, T extends Base> {
  /** A subclass of the exported class. Keep the class name (`class User extends GatehouseUser`). */
  class?: EntityClass<T>;
  /** The properties the subclass adds, as `EntitySchema` properties. */
  properties?: EntitySchemaMetadata<T, Base>["properties"];
  /** The table; defaults to `users`, `accounts`, `sessions`, `verification_tokens`, `authenticators`. */
  tableName?: string;
}

/** What {@link defineGatehouseEntities} extends, entity by entity. */
export interface GatehouseEntityExtensions<
  U extends User = User,
  A extends Account = Account,
  S extends Session = Session,
  V extends VerificationToken = VerificationToken,
  W extends Authenticator = Authenticator,
> {
  User?: GatehouseEntityExtension<User, U>;
  Account?: GatehouseEntityExtension<Account, A>;
  Session?: GatehouseEntityExtension<Session, S>;
  VerificationToken?: GatehouseEntityExtension<VerificationToken, V>;
  Authenticator?: GatehouseEntityExtension<Authenticator, W>;
}

/** The five schemas, wired to each other; pass the object as the adapter's `entities` option. */
export interface GatehouseEntities<
  U extends User = User,
  A extends Account = Account,
  S extends Session = Session,
  V extends VerificationToken = VerificationToken,
  W extends Authenticator = Authenticator,
> {
  User: EntitySchema<U>;
  Account: EntitySchema<A>;
  Session: EntitySchema<S>;
  VerificationToken: EntitySchema<V>;
  Authenticator: EntitySchema<W>;
  /** The refresh locks (`account_locks`); not extensible. */
  AccountLock: EntitySchema<AccountLock>;
  /** All six, for MikroORM's `entities` option. */
  list: readonly [
    EntitySchema<U>,
    EntitySchema<A>,
    EntitySchema<S>,
    EntitySchema<V>,
    EntitySchema<W>,
    EntitySchema<AccountLock>,
  ];
}

/**
 * MySQL or MariaDB. MikroORM's `MariaDbPlatform` extends the `MySqlPlatform` of its MySQL
 * driver; the class chain is read by name, since `@mikro-orm/knex` is not a dependency here.
 */
function isMySqlFamily(platform: Platform): boolean {
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
class ExactString extends StringType {
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
class ExactText extends TextType {
  override getColumnType(prop: EntityProperty, platform: Platform): string {
    return exact(super.getColumnType(prop, platform), platform);
  }
}

/**
 * The key of a refresh lock: the provider and the account id as JSON, up to 1100 characters.
 * InnoDB keys hold at most 3072 bytes, 768 `utf8mb4` characters, so on MySQL and MariaDB the key
 * is `varbinary(3072)`: its UTF-8 bytes, compared byte by byte.
 */
class LockKey extends StringType {
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
class MillisecondDateTime extends DateTimeType {
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
const exactText = new ExactText();
const dateTime = new MillisecondDateTime();

// Column names are the contract's field names, as in @gatehousejs/pg-adapter's schema, whatever
// naming strategy the ORM uses. Keys are varchar (indexable everywhere); values are text.
const key = (fieldName: string, length = 255) =>
  ({ type: exactString, length, fieldName }) as const;
const date = (fieldName: string) => ({ type: dateTime, fieldName }) as const;
const nullableDate = (fieldName: string) => ({ ...date(fieldName), nullable: true }) as const;
const text = (fieldName: string) => ({ type: exactText, fieldName, nullable: true }) as const;
const generatedId = { ...key("id"), primary: true, onCreate: () => randomUUID() } as const;
// `userId` reads the relation (see the classes); the column belongs to `user`.
const userId = { type: "string", persist: false } as const;
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
function emailIndex(families: ReadonlySet<"mysql" | "standard">) {
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

/**
 * Builds the entity schemas of the Gatehouse tables, with your extensions: a subclass, extra
 * columns or another table name for any of the five entities. Relations are wired between the
 * schemas built by the same call, so an extended `User` is the target of `Account.user`.
 * Call it once, before `MikroORM.init`, and register `list`; give the result to the adapter as
 * `entities`. {@link gatehouseEntities} is the result without extensions.
 *
 * @example
 * ```ts
 * import type { Opt } from "@mikro-orm/core"
 * import { User as GatehouseUser, defineGatehouseEntities, MikroOrmAdapter } from "@gatehousejs/mikro-orm-adapter"
 *
 * export class User extends GatehouseUser {
 *   declare role: Opt<string>
 * }
 * export const entities = defineGatehouseEntities({
 *   User: { class: User, properties: { role: { type: "string", default: "member" } } },
 * })
 * const orm = await MikroORM.init({ ..., entities: [...entities.list] })
 * const adapter = MikroOrmAdapter(orm, { entities })
 * ```
 */
export function defineGatehouseEntities<
  U extends User = User,
  A extends Account = Account,
  S extends Session = Session,
  V extends VerificationToken = VerificationToken,
  W extends Authenticator = Authenticator,
>(extensions: GatehouseEntityExtensions<U, A, S, V, W> = {}): GatehouseEntities<U, A, S, V, W> {
  // Filled in below; the relations read it when MikroORM discovers the entities.
  const set = {} as GatehouseEntities;
  const owner = {
    kind: "m:1",
    entity: () => set.User,
    fieldName: "userId",
    deleteRule: "cascade",
    updateRule: "cascade",
    index: true,
  } as const;

  // The SQL families that discovered the email column, for its index (see emailIndex).
  const families = new Set<"mysql" | "standard">();
  const emailType = new ExactString((platform) => {
    families.add(isMySqlFamily(platform) ? "mysql" : "standard");
  });

  set.User = build(extensions.User, User, "users", {
    id: generatedId,
    name: text("name"),
    email: { ...key("email", 320), type: emailType, default: "", onCreate: () => "" },
    emailVerified: {
      ...nullableDate("emailVerified"),
      default: null,
      onCreate: () => null,
    },
    image: text("image"),
    accounts: { kind: "1:m", entity: () => set.Account, mappedBy: "user" },
    sessions: { kind: "1:m", entity: () => set.Session, mappedBy: "user" },
    // MySQL and MariaDB only (see EmailKey); never selected unless asked for.
    emailKey: {
      type: new EmailKey(),
      fieldName: "email_key",
      // Not `nullable`: MariaDB takes no `null` after a generated column's definition.
      lazy: true,
      hidden: true,
      unique: "users_email_unique",
    },
  });
  set.User.addIndex({
    name: "users_email_key",
    properties: ["email"],
    expression: emailIndex(families),
  });

  set.Account = build(extensions.Account, Account, "accounts", {
    id: generatedId,
    user: { ...owner, inversedBy: "accounts" },
    userId,
    type: key("type", 32),
    provider: key("provider"),
    providerAccountId: key("providerAccountId", 512),
    refresh_token: text("refresh_token"),
    access_token: text("access_token"),
    expires_at: { type: new BigIntType("number"), fieldName: "expires_at", nullable: true },
    token_type: text("token_type"),
    scope: text("scope"),
    id_token: text("id_token"),
    session_state: { type: "json", fieldName: "session_state", nullable: true },
    authorization_details: { type: "json", fieldName: "authorization_details", nullable: true },
    error: text("error"),
    passwordHash: text("passwordHash"),
  });
  set.Account.addUnique({
    name: "accounts_provider_account_key",
    properties: ["provider", "providerAccountId"],
  });

  set.Session = build(extensions.Session, Session, "sessions", {
    id: generatedId,
    user: { ...owner, inversedBy: "sessions" },
    userId,
    sessionToken: { ...key("sessionToken"), unique: "sessions_sessionToken_key" },
    expires: date("expires"),
    createdAt: nullableDate("createdAt"),
    lastSeenAt: nullableDate("lastSeenAt"),
    provider: text("provider"),
    providerType: text("providerType"),
    client: text("client"),
    ip: text("ip"),
    providerSid: text("providerSid"),
    error: text("error"),
    factors: text("factors"),
  });

  set.VerificationToken = build(
    extensions.VerificationToken,
    VerificationToken,
    "verification_tokens",
    {
      identifier: { ...key("identifier", 320), primary: true },
      token: { ...key("token"), primary: true },
      expires: date("expires"),
      tries: { type: "integer", fieldName: "tries", default: 0 },
    },
  );

  set.Authenticator = build(extensions.Authenticator, Authenticator, "authenticators", {
    credentialID: { ...key("credentialID", 512), primary: true },
    user: owner,
    userId,
    providerAccountId: key("providerAccountId", 512),
    credentialPublicKey: { type: exactText, fieldName: "credentialPublicKey" },
    counter: { type: new BigIntType("number"), fieldName: "counter", default: 0 },
    credentialDeviceType: key("credentialDeviceType", 32),
    credentialBackedUp: { type: "boolean", fieldName: "credentialBackedUp" },
    transports: text("transports"),
  });

  set.AccountLock = build(undefined, AccountLock, "account_locks", {
    key: { ...key("key", 1100), type: new LockKey(), primary: true },
    holder: key("holder", 64),
    expires: { type: new BigIntType("number"), fieldName: "expires" },
  });

  set.list = [
    set.User,
    set.Account,
    set.Session,
    set.VerificationToken,
    set.Authenticator,
    set.AccountLock,
  ];
  // The schemas of subclasses, typed as such; `build` merged their properties in.
  return set as unknown as GatehouseEntities<U, A, S, V, W>;
}

/** One schema: the base properties (type-checked against the class) and the extension's. */
function build<Base>(
  extension: GatehouseEntityExtension<Base, Base> | undefined,
  base: EntityClass<Base>,
  tableName: string,
  properties: EntitySchemaMetadata<Base>["properties"],
): EntitySchema<Base> {
  return new EntitySchema<Base>({
    class: extension?.class ?? base,
    tableName: extension?.tableName ?? tableName,
    properties: { ...properties, ...extension?.properties },
  } as EntitySchemaMetadata<Base>);
}

/**
 * The Gatehouse entities without extensions: register `gatehouseEntities.list` with MikroORM.
 *
 * @example
 * ```ts
 * import { MikroORM } from "@mikro-orm/postgresql"
 * import { gatehouseEntities, MikroOrmAdapter } from "@gatehousejs/mikro-orm-adapter"
 *
 * const orm = await MikroORM.init({ clientUrl: process.env.DATABASE_URL, entities: [...gatehouseEntities.list] })
 * const adapter = MikroOrmAdapter(orm)
 * ```
 */
export const gatehouseEntities: GatehouseEntities = defineGatehouseEntities();
