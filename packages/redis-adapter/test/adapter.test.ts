import { runAdapterTests } from "@gatehousejs/adapter-test";
import { describe } from "vitest";
import { RedisAdapter } from "../src/index.js";
import { deleteKeysUnder, ioredis, readers, redisUnavailable, uniquePrefix } from "./support.js";

const skip = await redisUnavailable("adapter.test.ts");
const prefix = uniquePrefix("ioredis-contract");
const client = ioredis();

describe.skipIf(skip)("ioredis", () => {
  runAdapterTests({
    name: "redis (ioredis)",
    adapter: RedisAdapter(client, { prefix }),
    db: {
      ...readers(client, prefix),
      async disconnect() {
        await deleteKeysUnder(client, prefix);
        await client.quit();
      },
    },
  });
});
