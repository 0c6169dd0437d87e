import NextAuth from "next-auth";
import Credentials from "next-auth/providers/credentials";
import { config } from "./config";

export const { handlers, auth, signIn, signOut } = NextAuth(config(Credentials));
