"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";

/** A link of the top bar, marked `aria-current="page"` on its own page. */
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
