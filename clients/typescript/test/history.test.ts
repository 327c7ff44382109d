// allHistoryEntries without a server: it follows nextPageToken from page to page, passing the
// page size on, and stops at the page whose nextPageToken is empty.
import assert from "node:assert/strict";
import { test } from "node:test";

import { create } from "@bufbuild/protobuf";

import { type GameServiceClient, HistoryEntrySchema, allHistoryEntries } from "../src/index.js";

/** A GetHistory stand-in over versions 2..`last` in pages of `pageSize` whose tokens are "v<version>"; records each request. */
function fakeHistory(last: bigint) {
  const asked: { gameId: string; pageToken: string; pageSize: number }[] = [];
  const client = {
    getHistory: async (request: { gameId: string; pageToken: string; pageSize: number }) => {
      asked.push(request);
      const after = request.pageToken ? BigInt(request.pageToken.slice(1)) : 1n;
      const end = after + BigInt(request.pageSize || 1000) < last ? after + BigInt(request.pageSize || 1000) : last;
      const entries = [];
      for (let version = after + 1n; version <= end; version++) entries.push(create(HistoryEntrySchema, { version }));
      return { entries, version: last, nextPageToken: end < last ? `v${end}` : "" };
    },
  } as unknown as GameServiceClient;
  return { asked, client };
}

test("allHistoryEntries walks every page in order", async () => {
  const { asked, client } = fakeHistory(17n);
  const versions: bigint[] = [];
  for await (const entry of allHistoryEntries(client, "g", { pageSize: 7 })) versions.push(entry.version);
  assert.deepEqual(versions, Array.from({ length: 16 }, (_, i) => BigInt(i + 2)));
  assert.deepEqual(asked, ["", "v8", "v15"].map((pageToken) => ({ gameId: "g", pageToken, pageSize: 7 })));
});

test("allHistoryEntries continues after a page token and stops at once on a last page", async () => {
  const { asked, client } = fakeHistory(9n);
  const versions: bigint[] = [];
  for await (const entry of allHistoryEntries(client, "g", { pageToken: "v5" })) versions.push(entry.version);
  assert.deepEqual(versions, [6n, 7n, 8n, 9n]);
  assert.deepEqual(asked, [{ gameId: "g", pageToken: "v5", pageSize: 0 }]);
});
