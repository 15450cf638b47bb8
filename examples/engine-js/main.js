#!/usr/bin/env node
// The engine protocol over stdin/stdout (JSON lines) for engine.js.
// Provisional: adapted to docs/protocol.md once that is written.
"use strict";

const readline = require("node:readline");
const engine = require("./engine.js");

const games = new Map();
let nextHandle = 1;

function game(req) {
  const g = games.get(req.game);
  if (g === undefined) throw Object.assign(new Error(`no game ${req.game}`), { code: "no_game" });
  return g;
}

const handlers = {
  hello: () => ({
    protocol: 1,
    name: "meuterer-js",
    version: "0.1.0",
    language: "javascript",
  }),
  new: (req) => {
    const state = engine.newGame(req.players, req.first_captain ?? 0, req.rules ?? {});
    const handle = `g${nextHandle++}`;
    games.set(handle, state);
    return { game: handle };
  },
  legal: (req) => {
    const state = game(req);
    const who = engine.currentPlayer(state);
    if (who === engine.CHANCE) return { to_move: "chance", outcomes: engine.chanceOutcomes(state) };
    return { to_move: who, legal: engine.legalActions(state) };
  },
  apply: (req) => {
    games.set(req.game, engine.apply(game(req), req.action));
    return {};
  },
  scores: (req) => ({ scores: engine.scores(game(req)) }),
  clone: (req) => {
    const handle = `g${nextHandle++}`;
    games.set(handle, game(req));
    return { game: handle };
  },
  drop: (req) => {
    games.delete(req.game);
    return {};
  },
};

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  let req;
  try {
    req = JSON.parse(line);
  } catch {
    process.stdout.write(`${JSON.stringify({ id: null, error: "malformed" })}\n`);
    return;
  }
  if (req.cmd === "quit") {
    process.stdout.write(`${JSON.stringify({ id: req.id })}\n`);
    process.exit(0);
  }
  const handler = handlers[req.cmd];
  let reply;
  try {
    if (!handler) throw Object.assign(new Error(`unknown command ${req.cmd}`), { code: "unknown_command" });
    reply = { id: req.id, ...handler(req) };
  } catch (err) {
    if (err instanceof engine.UnsupportedError) reply = { id: req.id, skipped: err.message };
    else if (err instanceof engine.IllegalAction) reply = { id: req.id, refused: err.code, message: err.message };
    else reply = { id: req.id, error: err.code || "error", message: String(err.message) };
  }
  process.stdout.write(`${JSON.stringify(reply)}\n`);
});
