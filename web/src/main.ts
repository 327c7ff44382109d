// The web table's entry: the lobby, or the table of the game and seat the URL's fragment names.
import "./style.css";

import { ConnectError } from "@cardgame/client/web";

import { placeFromHash } from "./api.js";
import { h } from "./dom.js";
import { showLobby } from "./lobby.js";
import { Table } from "./table.js";

const root = document.getElementById("app")!;
let table: Table | undefined;

async function route(): Promise<void> {
  table?.close();
  table = undefined;
  const place = placeFromHash();
  if (place === undefined) {
    showLobby(root);
    return;
  }
  root.replaceChildren(h("p", { class: "loading" }, "Joining the table…"));
  try {
    table = await Table.open(root, place);
  } catch (err) {
    const text = err instanceof ConnectError ? err.rawMessage : String(err);
    root.replaceChildren(h("main", { class: "lobby" }, h("h1", {}, "This table cannot be joined"),
      h("p", { class: "message", role: "alert" }, text), h("a", { href: "#", class: "button" }, "Start a new game")));
  }
}

window.addEventListener("hashchange", () => void route());
void route();
