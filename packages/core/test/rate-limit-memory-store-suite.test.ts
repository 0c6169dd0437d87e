/** The memory rate-limit store (the default) against the published rate-limit store suite. */
import { runRateLimitStoreTests } from "@gatehousejs/adapter-test";
import { MemoryRateLimitStore } from "@gatehousejs/core";

runRateLimitStoreTests({ name: "MemoryRateLimitStore", store: MemoryRateLimitStore() });
