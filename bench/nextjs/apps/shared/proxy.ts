export { auth as proxy } from "./auth";

// Only the protected page goes through the proxy; the floor page does not.
export const config = { matcher: ["/protected"] };
