-- The tables @auth/pg-adapter 1.11.3 queries (users, accounts, sessions, verification_token),
-- written for the bench from the adapter's documented table layout and the column names its
-- queries use. Created in a schema of the bench's own; the pool's search_path points there.
-- The two indexes at the end are the bench's, so that neither library scans where the other
-- looks up by index: Gatehouse's schema has a unique index on "sessionToken" too.

CREATE TABLE users (
  id              SERIAL PRIMARY KEY,
  name            VARCHAR(255),
  email           VARCHAR(255),
  "emailVerified" TIMESTAMPTZ,
  image           TEXT
);

CREATE TABLE accounts (
  id                  SERIAL PRIMARY KEY,
  "userId"            INTEGER NOT NULL,
  type                VARCHAR(255) NOT NULL,
  provider            VARCHAR(255) NOT NULL,
  "providerAccountId" VARCHAR(255) NOT NULL,
  refresh_token       TEXT,
  access_token        TEXT,
  expires_at          BIGINT,
  id_token            TEXT,
  scope               TEXT,
  session_state       TEXT,
  token_type          TEXT
);

CREATE TABLE sessions (
  id             SERIAL PRIMARY KEY,
  "userId"       INTEGER NOT NULL,
  expires        TIMESTAMPTZ NOT NULL,
  "sessionToken" VARCHAR(255) NOT NULL
);

CREATE TABLE verification_token (
  identifier TEXT NOT NULL,
  expires    TIMESTAMPTZ NOT NULL,
  token      TEXT NOT NULL,
  PRIMARY KEY (identifier, token)
);

CREATE UNIQUE INDEX sessions_session_token_key ON sessions ("sessionToken");
CREATE UNIQUE INDEX accounts_provider_account_key ON accounts (provider, "providerAccountId");
