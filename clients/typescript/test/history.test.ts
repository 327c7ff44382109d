// allHistoryEntries without a server: it follows nextAfterVersion from page to page, passing the
// page size on, and stops at the page whose nextAfterVersion is 0n.
import assert from "node:assert/strict";
import { test } from "node:test";

import { create } from "@bufbuild/protobuf";

import { type GameServiceClient, HistoryEntrySchema, allHistoryEntries } from "../src/index.js";

/** A GetHistory stand-in over versions 2..`last` in pages of `pageSize`; records each request. */
function fakeHistory(last: bigint) {
  const asked: { gameId: string; afterVersion: bigint; pageSize: number }[] = [];
  const client = {
    getHistory: async (request: { gameId: string; afterVersion: bigint; pageSize: number }) => {
      asked.push(request);
      const from = request.afterVersion > 1n ? request.afterVersion : 1n;
      const end = from + BigInt(request.pageSize || 1000) < last ? from + BigInt(request.pageSize || 1000) : last;
      const entries = [];
      for (let version = from + 1n; version <= end; version++) entries.push(create(HistoryEntrySchema, { version }));
      return { entries, version: last, nextAfterVersion: end < last ? end : 0n };
    },
  } as unknown as GameServiceClient;
  return { asked, client };
}

test("allHistoryEntries walks every page in order", async () => {
  const { asked, client } = fakeHistory(17n);
  const versions: bigint[] = [];
  for await (const entry of allHistoryEntries(client, "g", { pageSize: 7 })) versions.push(entry.version);
  assert.deepEqual(versions, Array.from({ length: 16 }, (_, i) => BigInt(i + 2)));
  assert.deepEqual(asked, [0n, 8n, 15n].map((afterVersion) => ({ gameId: "g", afterVersion, pageSize: 7 })));
});

test("allHistoryEntries starts after afterVersion and stops at once on a last page", async () => {
  const { asked, client } = fakeHistory(9n);
  const versions: bigint[] = [];
  for await (const entry of allHistoryEntries(client, "g", { afterVersion: 5n })) versions.push(entry.version);
  assert.deepEqual(versions, [6n, 7n, 8n, 9n]);
  assert.deepEqual(asked, [{ gameId: "g", afterVersion: 5n, pageSize: 0 }]);
});
