import Credentials from "@gatehousejs/core/providers/credentials";
import Gatehouse from "@gatehousejs/nextjs";
import { config } from "./config";

export const { handlers, auth, signIn, signOut } = Gatehouse(config(Credentials));
