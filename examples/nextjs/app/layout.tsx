import { SessionProvider } from "@gatehousejs/nextjs/client";
import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { auth } from "@/auth";
import { Hydrated } from "@/components/Hydrated";
import { NavLink } from "@/components/NavLink";
import "./globals.css";

export const metadata: Metadata = {
  title: "Gatehouse × Next.js",
  description: "A Next.js app signed in with Gatehouse",
};

/**
 * Every page: the top bar, and `SessionProvider` seeded with the server's session, so that
 * `useSession()` in the browser starts signed in without a request or a flash.
 */
export default async function RootLayout({ children }: { children: ReactNode }) {
  const session = await auth();
  return (
    <html lang="en">
      <body>
        <SessionProvider session={session}>
          <div id="app">
            <header className="bar">
              <Link href="/" className="brand" data-testid="nav-home">
                {/* biome-ignore lint/performance/noImgElement: a small SVG, no optimisation */}
                <img src="/logo.svg" alt="" width="28" height="28" />
                Gatehouse Demo
              </Link>
              <nav aria-label="Pages">
                <NavLink href="/protected" testId="nav-protected">
                  Protected (proxy)
                </NavLink>
                <NavLink href="/server" testId="nav-server">
                  Server Component
                </NavLink>
                <NavLink href="/profile" testId="nav-profile">
                  Profile
                </NavLink>
                <NavLink href="/account" testId="nav-account">
                  Account
                </NavLink>
                <NavLink href="/two-factor" testId="nav-two-factor">
                  Two-factor
                </NavLink>
                <NavLink href="/sessions" testId="nav-sessions">
                  Sessions
                </NavLink>
                <NavLink href="/activity" testId="nav-activity">
                  Activity
                </NavLink>
                <NavLink href="/provider-token" testId="nav-provider-token">
                  Provider token
                </NavLink>
              </nav>
            </header>
            <main>{children}</main>
          </div>
        </SessionProvider>
        <Hydrated />
      </body>
    </html>
  );
}
