// Gatehouse itself: the built-in pages, the OAuth callbacks, the session, passkeys, sessions.
import { handlers } from "@/auth";

export const { GET, POST } = handlers;
