/**
 * A Nitro plugin, run once when the server starts: a deployed app without `AUTH_SECRET` stops
 * here with a clear message, and the database is opened and migrated before the first request.
 */
import { db } from "../lib/db";
import { isDemo } from "../lib/env";

export default function startup(): void {
  if (!process.env.AUTH_SECRET && !isDemo()) {
    console.error(
      "[gatehouse-example] AUTH_SECRET is not set. Generate one (openssl rand -base64 32) and set it in the environment.",
    );
    process.exit(1);
  }
  db.ready.then(
    () => console.log("[gatehouse-example] database ready"),
    (error: Error) => {
      console.error("[gatehouse-example] the database could not be opened:", error.message);
      process.exit(1);
    },
  );
}
