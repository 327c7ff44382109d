// The web table's build: `npm run build` writes dist/, which the server's HTTP port serves
// (`make web`, `make run`). `npm run dev` serves it on http://localhost:5173 and calls the API at
// VITE_CARDGAME_API (see .env.development), an origin `make run` allows through CORS.
import { defineConfig } from "vite";

export default defineConfig({
  server: { port: 5173, strictPort: true },
  build: { target: "es2022", sourcemap: true },
});
