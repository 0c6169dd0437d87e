/**
 * The adapter and the stores on MariaDB (or MySQL) through a mysql2 pool, in a fresh database
 * dropped afterwards.
 */

import { openMariadb } from "./support/databases.js";
import { mariadbReachable } from "./support/servers.js";
import { allSuites } from "./support/suites.js";

allSuites(() => openMariadb(), { skip: !(await mariadbReachable()) });
