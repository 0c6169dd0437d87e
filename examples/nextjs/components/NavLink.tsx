"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";

/**
 * A link of the top bar, marked `aria-current="page"` on its own page. `prefetch={false}` for a
 * page behind the proxy: prefetched while signed out, it would only fetch the proxy's redirect.
 */
export function NavLink(props: {
  href: string;
  testId: string;
  prefetch?: boolean;
  children: ReactNode;
}) {
  const current = usePathname() === props.href;
  return (
    <Link
      href={props.href}
      prefetch={props.prefetch}
      aria-current={current ? "page" : undefined}
      data-testid={props.testId}
    >
      {props.children}
    </Link>
  );
}
