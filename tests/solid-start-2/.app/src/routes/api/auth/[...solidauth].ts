import { SolidAuth } from "@gatehouse/solid-start";
import { authConfig } from "~/lib/auth";

export const { GET, POST } = SolidAuth(authConfig);
