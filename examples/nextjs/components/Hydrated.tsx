"use client";
import { useEffect } from "react";

/** Marks the page once React runs in the browser: the browser tests wait for it before clicking. */
export function Hydrated() {
  useEffect(() => document.documentElement.setAttribute("data-hydrated", ""), []);
  return null;
}
