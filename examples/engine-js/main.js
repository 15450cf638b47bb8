#!/usr/bin/env node
// The engine protocol, version 1 (docs/protocol.md), over stdin/stdout for engine.js:
//   meuterer conform -- node examples/engine-js/main.js
"use strict";

const readline = require("node:readline");
const engine = require("./engine.js");
const views = require("./views.js");

const games = new Map();
let nextHandle = 1;

class Failure extends Error {}

function game(req) {
  const state = games.get(req.game);
  if (state === undefined) throw new Failure(`no game with handle ${JSON.stringify(req.game)}`);
  return state;
}

function newHandle(state) {
  const handle = `g${nextHandle++}`;
  games.set(handle, state);
  return handle;
}

// The rule options played with values other than their defaults.
const OPTIONS = [
  "islands",
  "pirates",
  "ring",
  "pirates_rob_at_start",
  "pirates_return",
  "deck",
  "rounds",
  "sale_order",
  "withholding",
  "discard_pool",
  "reshuffle",
  "hand_size",
  "loadmaster_extra",
  "max_offer",
  "cabin_boy_points",
];

const commands = {
  hello: () => ({
    protocol: 1,
    implementation: { name: "meuterer-js", version: "0.1.0", language: "javascript" },
    capabilities: { players: [3, 4], options: OPTIONS, views: true, clone: true },
  }),
  new: (req) => {
    try {
      return { game: newHandle(engine.newGame(req.players, req.first_captain, req.rules)) };
    } catch (err) {
      if (err instanceof engine.UnsupportedError) return { status: "skipped", reason: err.message };
      throw err;
    }
  },
  legal: (req) => {
    const state = game(req);
    const actor = engine.currentPlayer(state);
    if (state.step === "ring") return { actor: "chance", actions: null, ring: engine.ringOutcomes(state) };
    if (actor === engine.CHANCE) {
      const outcomes = engine.chanceOutcomes(state);
      return {
        actor: "chance",
        actions: outcomes.map(([action]) => action),
        probabilities: outcomes.map(([, p]) => p),
      };
    }
    return { actor, actions: engine.legalActions(state) };
  },
  apply: (req) => {
    const state = game(req);
    try {
      games.set(req.game, engine.apply(state, req.action));
    } catch (err) {
      if (err instanceof engine.IllegalAction) return { status: "refused", code: err.code, message: err.message };
      throw err;
    }
    return {};
  },
  scores: (req) => ({ scores: engine.scores(game(req)) }),
  view: (req) => {
    const state = game(req);
    const seat = req.seat ?? null;
    if (seat !== null && !(Number.isInteger(seat) && seat >= 0 && seat < state.players)) {
      throw new Failure(`no seat ${JSON.stringify(seat)}`);
    }
    const text = views.view(state, seat);
    return req.form === "text" ? { text } : { digest: views.digest(text) };
  },
  clone: (req) => ({ game: newHandle(game(req)) }),
  drop: (req) => {
    game(req);
    games.delete(req.game);
    return {};
  },
  quit: () => ({}),
};

function answer(line) {
  let req;
  try {
    req = JSON.parse(line);
  } catch (err) {
    return { id: null, status: "errored", message: `not JSON: ${err.message}` };
  }
  if (req === null || typeof req !== "object") return { id: null, status: "errored", message: "not an object" };
  const command = Object.hasOwn(commands, req.cmd) ? commands[req.cmd] : null;
  if (command === null) return { id: req.id, status: "skipped", reason: "unknown command" };
  try {
    return { id: req.id, status: "ok", ...command(req) };
  } catch (err) {
    return { id: req.id, status: "errored", message: String(err.message), detail: String(err.stack) };
  }
}

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const reply = answer(line);
  const quit = reply.status === "ok" && JSON.parse(line).cmd === "quit";
  process.stdout.write(`${JSON.stringify(reply)}\n`, () => {
    if (quit) process.exit(0);
  });
});
