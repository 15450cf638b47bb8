// What one seat (or a spectator) knows, as the canonical view JSON of docs/view-json.md.
"use strict";

const { createHash } = require("node:crypto");
const engine = require("./engine.js");

const STEP_NAMES = {
  ring: "ring",
  offer: "offer",
  play: "play",
  role: "choose_role",
  support: "mutiny",
  sell: "sell",
  discard: "loadmaster_discard",
  over: "game_over",
};

const zeros = () => [0, 0, 0, 0, 0, 0, 0];
const total = (counts) => counts.reduce((a, b) => a + b, 0);

function rulesObject(rules) {
  const out = {};
  for (const [key, value] of Object.entries(rules)) out[key] = value;
  out.islands = rules.islands.map((island) => ({
    buys: island.buys === null ? null : engine.CARDS[island.buys],
    name: island.name,
    ship: island.ship,
    values: island.values,
  }));
  return out;
}

// The seats still to act after the one acting now, in the current step.
function queue(s) {
  switch (s.step) {
    case "ring":
    case "draw":
    case "discard":
      // the seats that will draw (a seat whose hand is full draws nothing)
      return s.draws
        .slice(1)
        .filter((entry) => entry.left > 0 || entry.loadmaster)
        .map((entry) => entry.seat);
    case "support":
      return s.supportQueue.slice(1);
    case "sell":
      return s.saleQueue.slice(1);
    default:
      return [];
  }
}

function view(s, seat) {
  const me = seat === null ? null : seat;
  const drawing = s.step === "draw" || s.step === "discard";
  const drawer = drawing ? s.draws[0].seat : null;
  const unseen = s.rules.deck.slice();
  for (let c = 0; c < 7; c++) {
    unseen[c] -= s.discard[c];
    for (let p = 0; p < s.players; p++) unseen[c] -= s.faceUp[p][c];
    if (me !== null) unseen[c] -= s.hands[me][c] + s.faceDown[me][c];
  }
  const drawnCount = drawing ? total(s.drawnNow) : 0;
  const v = {
    active: s.active,
    captain: s.captain,
    captain_destination: s.captainDest ?? null,
    deck_size: total(s.deck),
    discard: s.discard,
    drawn: me !== null && me === drawer ? s.drawnNow : zeros(),
    drawn_count: drawnCount,
    draws_left: drawing || s.step === "ring" ? s.draws[0].left : 0,
    face_down: me === null ? zeros() : s.faceDown[me],
    face_down_sizes: s.faceDown.map(total),
    face_up: s.faceUp,
    hand: me === null ? zeros() : s.hands[me],
    hand_sizes: s.hands.map(total),
    mutineer_destination: s.mutineerDest ?? null,
    mutiny: s.mutiny,
    offer: s.offer,
    passed: s.passedWith.map((n) => n !== null),
    pirate: s.pirate,
    player: me,
    players: s.players,
    queue: queue(s),
    ring: s.islands.map((island) => s.rules.islands.findIndex((i) => i.name === island.name)),
    role_order: s.roleOrder,
    roles: s.roles.map((role, p) => (s.revealed || p === me ? role : null)),
    roles_seen: me === null ? null : s.rolesSeen[me],
    round: s.round,
    rules: rulesObject(s.rules),
    sales: s.sales.map((list) =>
      list === null
        ? null
        : list.map(([pos, card, count]) => ({ card: engine.CARDS[card], count, island: s.islands[pos].name })),
    ),
    scores: s.scores,
    start: s.start,
    step: s.step === "draw" ? (s.afterDraws === "offer" ? "deal" : "draw") : STEP_NAMES[s.step],
    to_act: s.toAct,
    unseen,
  };
  return canonical(v);
}

// JSON with keys sorted at every level and no white space.
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

function digest(text) {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

module.exports = { view, digest, canonical };
