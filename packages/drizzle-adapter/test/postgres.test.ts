/**
 * The adapter and the stores on PostgreSQL: a server through a node-postgres Pool (a fresh
 * schema, dropped afterwards) and PGlite.
 */

import { openNodePostgres, openPglite } from "./support/databases.js";
import { postgresReachable } from "./support/servers.js";
import { allSuites } from "./support/suites.js";

allSuites(() => openNodePostgres(), { skip: !(await postgresReachable()) });
allSuites(() => openPglite());
