/**
 * The Gatehouse tables as MikroORM entities, defined with `EntitySchema`: no decorators, no
 * `reflect-metadata`, no `ts-morph`.
 *
 * Relations point at their targets through the schemas built together by
 * {@link defineGatehouseEntities} (MikroORM 7 no longer resolves entity names given as strings),
 * so an extended `User` is what `Account.user` and `Session.user` refer to.
 * @module
 */
import type { AdapterAccountType } from "@gatehousejs/core/adapters";
import type { AuthorizationDetails } from "@gatehousejs/core/types";
import {
  BigIntType,
  type Collection,
  type EntityClass,
  EntitySchema,
  type EntitySchemaMetadata,
  type OptionalProps,
} from "@mikro-orm/core";
import {
  date,
  EmailKey,
  ExactString,
  emailIndex,
  exactText,
  generatedId,
  isMySqlFamily,
  key,
  LockKey,
  nullableDate,
  text,
  userId,
} from "./columns.js";

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
