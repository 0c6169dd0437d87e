/**
 * The adapter and the stores on SQLite: better-sqlite3 and libSQL, each on a file in a
 * temporary folder. Both drivers turn PRAGMA foreign_keys on; options.test.ts checks that the
 * adapter does not rely on it.
 */

import { openBetterSqlite, openLibsql } from "./support/databases.js";
import { allSuites } from "./support/suites.js";

allSuites(() => openBetterSqlite());
allSuites(() => openLibsql());
