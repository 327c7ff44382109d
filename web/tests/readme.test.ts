// The browser example of docs/clients.md (`from "@cardgame/client/web"`), exactly as written,
// against a live server: bundled by Vite and run as a module in a Chromium page of the server's
// HTTP port (its own origin, as the example says). Run by tests/web/test_browser.py; the Node
// examples of the documentation run in tests/docs/test_docs.py.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";

import type { BrowserContext } from "playwright-core";
import { build } from "vite";

import { HTTP_SERVER, api, newPage, openBrowser, requireServer, screenshot } from "./browser.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const WEB = join(HERE, "..");
const PAGE = join(WEB, "..", "docs", "clients.md");
const WORK = join(WEB, "node_modules", ".cache", "cardgame-readme"); // resolves @cardgame/client from web/
const EXAMPLE_TIMEOUT_MS = 60_000;

/** The page's ```ts blocks that import `specifier`. */
function examples(specifier: string): string[] {
  const text = readFileSync(PAGE, "utf8");
  const blocks = [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  return blocks.filter((b) => new RegExp(`from "${specifier.replace("/", "\\/")}";`).test(b));
}

describe("the browser example of docs/clients.md", { concurrency: false }, () => {
  let context: BrowserContext;
  let closeBrowser: () => Promise<void>;

  before(async () => {
    requireServer();
    mkdirSync(WORK, { recursive: true });
    ({ context, close: closeBrowser } = await openBrowser());
  });

  after(async () => {
    await closeBrowser?.();
  });

  test("the browser example runs as written, in a page of the HTTP port", { timeout: EXAMPLE_TIMEOUT_MS }, async () => {
    const [example] = examples("@cardgame/client/web");
    assert.ok(example, "docs/clients.md has no ```ts block importing @cardgame/client/web");
    const file = join(WORK, "browser-example.ts");
    writeFileSync(file, example);
    const output = await build({
      configFile: false, root: WORK, logLevel: "silent",
      build: { write: false, target: "es2022", minify: false, lib: { entry: file, formats: ["es"], fileName: "example" } },
    });
    const chunks = (Array.isArray(output) ? output : [output]).flatMap((o) => ("output" in o ? o.output : []));
    const code = chunks.map((c) => ("code" in c ? c.code : "")).join("\n");
    assert.ok(code.includes("createGame"), "the bundle does not hold the example");

    const { page, errors } = await newPage(context);
    let created: Promise<{ gameId?: string }> | undefined;
    page.on("response", (response) => {
      if (response.url().endsWith("/cardgame.v1.GameService/CreateGame")) created = response.json();
    });
    await page.goto(`${HTTP_SERVER}/`);
    // The example is an ES module with top-level await: the line after it runs once it is done.
    const done = page.waitForFunction(() => (window as { readmeExampleDone?: boolean }).readmeExampleDone === true,
      undefined, { timeout: EXAMPLE_TIMEOUT_MS, polling: 100 });
    const failed = new Promise<never>((_, reject) => page.on("pageerror", reject));
    const logged = page.waitForEvent("console", { predicate: (msg) => msg.type() === "log", timeout: EXAMPLE_TIMEOUT_MS });
    await page.addScriptTag({ type: "module", content: `${code}\nwindow.readmeExampleDone = true;\n` });
    await Promise.race([done, failed]);
    assert.deepEqual(errors, [], "the example failed in the page");
    const scores = await (await Promise.race([logged, failed])).args()[0]?.jsonValue();
    assert.ok(Array.isArray(scores) && scores.length === 4 && scores.every(Number.isInteger),
      `the example logged ${JSON.stringify(scores)}`);
    // The title follows WatchGame: it shows the game's last version.
    const gameId = (await created)?.gameId ?? "";
    assert.match(gameId, /^[0-9a-f]{24}$/, "the example's CreateGame answer was not seen");
    const final = (await api().getGame({ gameId })).view;
    assert.equal(await page.title(), `version ${final?.version}`);
    await screenshot(page, "readme-browser-example");
    await page.close();
  });
});
