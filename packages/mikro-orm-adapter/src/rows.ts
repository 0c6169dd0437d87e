/**
 * Between managed entities and the plain rows of the adapter contract. Both directions read the
 * entity's metadata, so that columns added by an extended entity are written when the input
 * carries them and come back in the rows the adapter returns.
 */
import type { EntityMetadata } from "@mikro-orm/core";
import { EmailKey } from "./columns.js";

type Fields = Record<string, unknown>;

// The property kinds as MikroORM spells them (`ReferenceKind` values).
const SCALAR = "scalar";
const MANY_TO_ONE = "m:1";

type Prop = EntityMetadata["props"][number];
// `users.email_key` (MySQL and MariaDB) is the database's own: never written, never returned.
const isColumn = (prop: Prop) =>
  prop.kind === SCALAR && prop.persist !== false && !(prop.customType instanceof EmailKey);

/**
 * The data to create or update an entity with: the input's values for the entity's columns
 * (`undefined` means "leave alone"), and `user` set from `userId`.
 */
export function entityData(meta: EntityMetadata, input: object): Fields {
  const source = input as Fields;
  const data: Fields = {};
  for (const prop of meta.props) {
    if (isColumn(prop) && source[prop.name] !== undefined) data[prop.name] = source[prop.name];
  }
  if (meta.properties["user"] && typeof source["userId"] === "string")
    data["user"] = source["userId"];
  return data;
}

/**
 * A managed entity as a plain row: its columns (absent values as `null`), and `userId` for the
 * `user` relation. With `dropNull`, absent values are left out instead (for the optional token
 * fields of an account and the optional fields of a session, which the contract never types
 * `null`).
 */
export function plainRow<T>(meta: EntityMetadata, entity: object, dropNull = false): T {
  const source = entity as Fields;
  const row: Fields = {};
  for (const prop of meta.props) {
    if (isColumn(prop)) {
      const value = source[prop.name] ?? null;
      if (value !== null || !dropNull) row[prop.name] = value;
    } else if (prop.kind === MANY_TO_ONE && prop.name === "user") {
      row["userId"] = (source["user"] as { id: string } | undefined)?.id;
    }
  }
  return row as T;
}
