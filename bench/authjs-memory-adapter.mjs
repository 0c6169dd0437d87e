/**
 * A Map-backed adapter in @auth/core's adapter shape, written for the bench: @auth/core ships no
 * memory adapter. Like Gatehouse's `MemoryAdapter`, rows go in and come out as structured clones
 * (Dates stay Dates, callers cannot change what is stored), so both libraries pay the same for
 * their store and the comparison is of the libraries.
 */

const clone = (row) => (row === undefined || row === null ? null : structuredClone(row));
const accountKey = (provider, providerAccountId) => JSON.stringify([provider, providerAccountId]);
const tokenKey = (identifier, token) => JSON.stringify([identifier, token]);

export function AuthjsMemoryAdapter() {
  const users = new Map();
  const accounts = new Map();
  const sessions = new Map();
  const tokens = new Map();
  const byEmail = (email) => [...users.values()].find((u) => u.email === email);

  return {
    async createUser(user) {
      const row = { ...user, id: user.id ?? crypto.randomUUID() };
      users.set(row.id, clone(row));
      return clone(row);
    },
    async getUser(id) {
      return clone(users.get(id));
    },
    async getUserByEmail(email) {
      return clone(byEmail(email));
    },
    async getUserByAccount({ provider, providerAccountId }) {
      const account = accounts.get(accountKey(provider, providerAccountId));
      return clone(account && users.get(account.userId));
    },
    async updateUser(patch) {
      const row = { ...users.get(patch.id), ...patch };
      users.set(row.id, clone(row));
      return clone(row);
    },
    async deleteUser(id) {
      const user = users.get(id);
      users.delete(id);
      for (const [key, s] of sessions) if (s.userId === id) sessions.delete(key);
      for (const [key, a] of accounts) if (a.userId === id) accounts.delete(key);
      return clone(user);
    },
    async linkAccount(account) {
      accounts.set(accountKey(account.provider, account.providerAccountId), clone(account));
      return clone(account);
    },
    async unlinkAccount({ provider, providerAccountId }) {
      const key = accountKey(provider, providerAccountId);
      const account = accounts.get(key);
      accounts.delete(key);
      return clone(account) ?? undefined;
    },
    async createSession(session) {
      sessions.set(session.sessionToken, clone(session));
      return clone(session);
    },
    async getSessionAndUser(sessionToken) {
      const session = sessions.get(sessionToken);
      const user = session && users.get(session.userId);
      if (!session || !user) return null;
      return { session: clone(session), user: clone(user) };
    },
    async updateSession(patch) {
      const current = sessions.get(patch.sessionToken);
      if (!current) return null;
      const row = { ...current, ...patch };
      sessions.set(row.sessionToken, clone(row));
      return clone(row);
    },
    async deleteSession(sessionToken) {
      const session = sessions.get(sessionToken);
      sessions.delete(sessionToken);
      return clone(session);
    },
    async createVerificationToken(token) {
      tokens.set(tokenKey(token.identifier, token.token), clone(token));
      return clone(token);
    },
    async useVerificationToken({ identifier, token }) {
      const key = tokenKey(identifier, token);
      const row = tokens.get(key);
      tokens.delete(key);
      return clone(row);
    },
  };
}
