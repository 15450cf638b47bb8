// Meuterer, the base game, in plain JavaScript (Node >= 18, no dependencies).
//
// Written from the project's documents only (docs/rules.md, docs/notation.md,
// docs/record-format.md), as an independent second implementation that the
// reference checks through `meuterer conform`. Actions are canonical notation
// strings; a state is a plain object that apply() copies, never mutates.
//
// One-rule mutations for the conformance driver's own test are switched on by
// the environment variable MEUTERER_JS_MUTATION (see MUTATIONS below); without
// it this file implements the rules as documented.
"use strict";

const CARDS = ["ruby", "salt", "wine", "cloth", "grain", "support", "pirate"];
const GOODS = [0, 1, 2, 3, 4];
const SUPPORT = 5;
const ROLES = ["mutineer", "cabin_boy", "mate", "merchant", "loadmaster"];

const DEFAULT_ISLANDS = [
  ["hochland", null, [4, 3, 2], 5],
  ["frosthoehle", "cloth", [3, 2, 1], 3],
  ["gruenland", "salt", [5, 3, 2], 4],
  ["karge_zunge", "grain", [6, 3, 2], 4],
  ["eisfelsen", "ruby", [6, 4, 3], 5],
  ["affeninsel", "grain", [2, 1, 1], 2],
  ["kalte_klippe", "cloth", [5, 2, 2], 4],
  ["sommerland", "salt", [3, 1, 1], 2],
  ["rotes_riff", "wine", [4, 2, 2], 3],
  ["piratennest", null, [4, 3, 2], 5],
  ["fingerhut", "ruby", [2, 1, 0], 2],
  ["sandkap", "wine", [4, 2, 1], 3],
].map(([name, buys, values, ship]) => ({ name, buys, values, ship }));

const DEFAULT_RULES = {
  islands: DEFAULT_ISLANDS,
  pirates: false,
  deck: [4, 5, 6, 7, 8, 6, 0],
  ring: "fixed",
  rounds: null,
  sale_order: "new_captain",
  withholding: false,
  discard_pool: "drawn",
  reshuffle: "on_draw",
  pirates_rob_at_start: false,
  pirates_return: false,
  hand_size: 5,
  loadmaster_extra: 3,
  max_offer: 3,
  cabin_boy_points: 2,
};

// The options this engine plays. Anything else in a rules object is refused
// with an UnsupportedError, which the protocol reports as `skipped`.
const SUPPORTED = {
  pirates: [false],
  ring: ["fixed"],
  sale_order: ["new_captain", "round_captain"],
  withholding: [false, true],
  discard_pool: ["drawn", "hand"],
  reshuffle: ["on_draw", "when_empty"],
  pirates_rob_at_start: [false],
  pirates_return: [false],
};

// One-rule mutations: each changes exactly one rule, to prove the driver finds it.
const MUTATIONS = {
  "tie-to-captain": "a tied mutiny fails (the captain keeps the ship)",
  "mate-no-bonus": "the mate scores only the offer, not 1 + the offer",
  "mate-no-strength": "the mate does not count as a support card",
  "merchant-no-bonus": "a merchant among tied leaders scores like the others",
  "four-way-pays": "a four-way sale tie pays III to each leader",
  "loadmaster-two": "the loadmaster draws and discards two extra cards, not three",
  "sale-order-round-captain": "after a successful mutiny the round's captain announces first",
  "reshuffle-eager": "the discard pile becomes the deck as soon as a draw empties the deck",
  "offer-to-two": "the captain may offer only 0 to 2",
  "turn-order-ccw": "phase 2 goes counter-clockwise",
  "last-round-draws": "the last round still plays phases 6 to 10 before the game ends",
  "cabin-boy-three": "the cabin boy scores 3 after a successful mutiny",
  "destination-minus-one": "a destination is N - 1 islands clockwise (at least 0)",
  "withholding-allowed": "goods may be held back from sale under the default rules",
};

class RulesError extends Error {}
class UnsupportedError extends Error {}
class IllegalAction extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

function mutation() {
  const m = process.env.MEUTERER_JS_MUTATION || "";
  if (m && !(m in MUTATIONS)) {
    throw new Error(`unknown MEUTERER_JS_MUTATION ${JSON.stringify(m)}`);
  }
  return m;
}
const MUT = mutation();

// ---------------------------------------------------------------- rules

function makeRules(given) {
  if (given === null || given === undefined) given = {};
  if (typeof given !== "object" || Array.isArray(given)) {
    throw new RulesError("rules must be an object");
  }
  const rules = { ...DEFAULT_RULES };
  for (const [key, value] of Object.entries(given)) {
    if (!(key in DEFAULT_RULES)) throw new RulesError(`unknown rule option ${key}`);
    rules[key] = value;
  }
  for (const [key, allowed] of Object.entries(SUPPORTED)) {
    if (!allowed.includes(rules[key])) {
      throw new UnsupportedError(`${key}=${JSON.stringify(rules[key])} is not implemented`);
    }
  }
  if (!Array.isArray(rules.islands) || rules.islands.length !== 12) {
    throw new RulesError("the island table needs 12 islands");
  }
  rules.islands = rules.islands.map((isl) => ({
    name: isl.name,
    buys: isl.buys === null ? null : CARDS.indexOf(isl.buys),
    values: isl.values.slice(),
    ship: isl.ship,
  }));
  if (!Array.isArray(rules.deck) || rules.deck.length !== 7) {
    throw new RulesError("deck needs 7 counts");
  }
  return rules;
}

function roundsFor(rules, players) {
  if (rules.rounds !== null) return rules.rounds;
  return players === 3 ? 9 : 8;
}

// ---------------------------------------------------------------- helpers

const zeros = () => [0, 0, 0, 0, 0, 0, 0];
const total = (counts) => counts.reduce((a, b) => a + b, 0);
const gcd = (a, b) => (b === 0 ? a : gcd(b, a % b));

function ratio(num, den) {
  const g = gcd(num, den);
  return `${num / g}/${den / g}`;
}

function clone(state) {
  return structuredClone(state);
}

function nextSeat(state, seat) {
  return (seat + 1) % state.players;
}

function clockwiseFrom(state, first) {
  const seats = [];
  for (let i = 0; i < state.players; i++) seats.push((first + i) % state.players);
  return seats;
}

function destination(state, n) {
  let steps = n;
  if (MUT === "destination-minus-one") steps = Math.max(0, n - 1);
  return (state.start + steps) % 12;
}

function buys(island, card) {
  return card < SUPPORT && (island.buys === null || island.buys === card);
}

// ---------------------------------------------------------------- new game

function newGame(players, firstCaptain, givenRules) {
  if (players !== 3 && players !== 4) throw new RulesError("players must be 3 or 4");
  if (!Number.isInteger(firstCaptain) || firstCaptain < 0 || firstCaptain >= players) {
    throw new RulesError("first_captain must be a seat");
  }
  const rules = makeRules(givenRules);
  const state = {
    rules,
    players,
    round: 1,
    captain: firstCaptain,
    offer: 0,
    start: 0,
    active: [0],
    deck: rules.deck.slice(),
    discard: zeros(),
    hands: [],
    faceUp: [],
    faceDown: [],
    passedWith: [], // N of a passed player, null before he passes
    roles: [],
    scores: [],
    step: "draw",
    draws: [], // queue of [seat, cards still to draw]
    loadmasterDrawn: zeros(),
    turn: firstCaptain,
    roleSeat: null,
    supportQueue: [],
    saleQueue: [],
    sales: [], // per seat: list of [island, card, count]
    mutinyWon: false,
  };
  for (let p = 0; p < players; p++) {
    state.hands.push(zeros());
    state.faceUp.push(zeros());
    state.faceDown.push(zeros());
    state.passedWith.push(null);
    state.roles.push(null);
    state.scores.push(0);
    state.sales.push(null);
  }
  // The deal: five cards to the captain, then five to the next seat clockwise, ...
  state.draws = clockwiseFrom(state, firstCaptain).map((p) => ({ seat: p, left: rules.hand_size, loadmaster: false }));
  state.afterDraws = "offer";
  settle(state);
  return state;
}

// ---------------------------------------------------------------- who acts

const CHANCE = "chance";

function currentPlayer(state) {
  switch (state.step) {
    case "over":
      return null;
    case "draw":
      return CHANCE;
    case "offer":
      return state.captain;
    case "play":
      return state.turn;
    case "role":
      return state.roleSeat;
    case "support":
      return state.supportQueue[0];
    case "sell":
      return state.saleQueue[0];
    case "discard":
      return state.draws[0].seat;
    default:
      throw new Error(`bad step ${state.step}`);
  }
}

// ---------------------------------------------------------------- legal actions

function chanceOutcomes(state) {
  if (state.step !== "draw") return [];
  const seat = state.draws[0].seat;
  const deck = total(state.deck) > 0 ? state.deck : state.discard;
  const n = total(deck);
  const out = [];
  for (let c = 0; c < CARDS.length; c++) {
    if (deck[c] > 0) out.push([`draw p${seat} ${CARDS[c]}`, ratio(deck[c], n)]);
  }
  return out;
}

function multisets(counts, size) {
  // every multiset of `size` cards taken from `counts`, in canonical card order
  const out = [];
  const pick = zeros();
  const rec = (card, left) => {
    if (left === 0) {
      out.push(pick.slice());
      return;
    }
    if (card >= CARDS.length) return;
    for (let k = Math.min(left, counts[card]); k >= 0; k--) {
      pick[card] = k;
      rec(card + 1, left - k);
    }
    pick[card] = 0;
  };
  rec(0, size);
  return out;
}

function cardsText(counts) {
  const words = [];
  for (let c = 0; c < CARDS.length; c++) for (let k = 0; k < counts[c]; k++) words.push(CARDS[c]);
  return words.join(" ");
}

function saleOptions(state, seat) {
  // Every whole sale announcement of `seat`: for each active island nothing or
  // one good it buys with a count, goods split between islands as he likes.
  const up = state.faceUp[seat];
  const islands = state.active;
  const perIsland = islands.map((pos) => {
    const opts = [null];
    const island = state.rules.islands[pos];
    for (const g of GOODS) {
      if (!buys(island, g)) continue;
      for (let k = 1; k <= up[g]; k++) opts.push([g, k]);
    }
    return opts;
  });
  const combos = [[]];
  for (const opts of perIsland) {
    const next = [];
    for (const combo of combos) for (const o of opts) next.push([...combo, o]);
    combos.splice(0, combos.length, ...next);
  }
  const withholding = state.rules.withholding || MUT === "withholding-allowed";
  const out = [];
  for (const combo of combos) {
    const sold = zeros();
    for (const o of combo) if (o) sold[o[0]] += o[1];
    if (GOODS.some((g) => sold[g] > up[g])) continue;
    if (!withholding) {
      // sell what you can: an announced kind is sold entirely, and an island
      // where he announced nothing buys none of his unsold goods
      if (GOODS.some((g) => sold[g] > 0 && sold[g] < up[g])) continue;
      const unsold = GOODS.filter((g) => up[g] > 0 && sold[g] === 0);
      const bad = combo.some(
        (o, i) => o === null && unsold.some((g) => buys(state.rules.islands[islands[i]], g)),
      );
      if (bad) continue;
    }
    out.push(combo.map((o, i) => (o ? [islands[i], o[0], o[1]] : null)).filter((o) => o));
  }
  return out;
}

function sellText(seat, sales, rules) {
  if (sales.length === 0) return `p${seat} sell none`;
  const parts = sales.map(([pos, g, k]) => `${rules.islands[pos].name}:${CARDS[g]}:${k}`);
  return `p${seat} sell ${parts.join(",")}`;
}

function legalActions(state) {
  const seat = currentPlayer(state);
  switch (state.step) {
    case "over":
      return [];
    case "draw":
      return chanceOutcomes(state).map(([a]) => a);
    case "offer": {
      const max = MUT === "offer-to-two" ? Math.min(2, state.rules.max_offer) : state.rules.max_offer;
      const out = [];
      for (let k = 0; k <= max; k++) out.push(`p${seat} offer ${k}`);
      return out;
    }
    case "play": {
      const out = [];
      const hand = state.hands[seat];
      for (let c = 0; c < CARDS.length; c++) if (hand[c] > 0) out.push(`p${seat} play ${CARDS[c]}`);
      out.push(`p${seat} pass`);
      return out;
    }
    case "role": {
      const taken = new Set(state.roles.filter((r) => r !== null));
      return ROLES.filter((r) => !taken.has(r)).map((r) => `p${seat} role ${r}`);
    }
    case "support": {
      const out = [];
      for (let k = 0; k <= state.faceDown[seat][SUPPORT]; k++) out.push(`p${seat} support ${k}`);
      return out;
    }
    case "sell":
      return saleOptions(state, seat).map((s) => sellText(seat, s, state.rules));
    case "discard": {
      const pool = state.rules.discard_pool === "hand" ? state.hands[seat] : state.loadmasterDrawn;
      return multisets(pool, loadmasterExtra(state)).map((m) => `p${seat} discard ${cardsText(m)}`);
    }
    default:
      throw new Error(`bad step ${state.step}`);
  }
}

function loadmasterExtra(state) {
  return MUT === "loadmaster-two" ? Math.min(2, state.rules.loadmaster_extra) : state.rules.loadmaster_extra;
}

// ---------------------------------------------------------------- apply

function seatOf(word) {
  const m = /^p([0-3])$/.exec(word);
  return m ? Number(m[1]) : null;
}

function checkSyntax(text) {
  if (typeof text !== "string" || !/^[a-z0-9_:,]+( [a-z0-9_:,]+)*$/.test(text)) {
    throw new IllegalAction("malformed", `malformed action ${JSON.stringify(text)}`);
  }
}

function apply(state, action) {
  checkSyntax(action);
  if (state.step === "over") throw new IllegalAction("game_over", "the game is over");
  const legal = legalActions(state);
  if (!legal.includes(action)) {
    const words = action.split(" ");
    const seat = seatOf(words[0]);
    const who = currentPlayer(state);
    if (words[0] === "draw" && who !== CHANCE) throw new IllegalAction("not_chance", "no card is drawn now");
    if (seat !== null && who !== seat) throw new IllegalAction("not_your_turn", `it is not p${seat}'s turn`);
    throw new IllegalAction("illegal", `${action} is not legal here`);
  }
  const s = clone(state);
  const words = action.split(" ");
  if (words[0] === "draw") {
    drawCard(s, CARDS.indexOf(words[2]));
  } else {
    const seat = seatOf(words[0]);
    const verb = words[1];
    if (verb === "offer") {
      s.offer = Number(words[2]);
      s.step = "play";
      s.turn = s.captain;
    } else if (verb === "play") {
      const c = CARDS.indexOf(words[2]);
      s.hands[seat][c] -= 1;
      s.faceUp[seat][c] += 1;
      advanceTurn(s, seat);
    } else if (verb === "pass") {
      s.passedWith[seat] = total(s.hands[seat]);
      s.faceDown[seat] = s.hands[seat];
      s.hands[seat] = zeros();
      if (seat === s.captain) {
        s.captainDest = destination(s, s.passedWith[seat]);
        advanceTurn(s, seat);
      } else {
        s.step = "role";
        s.roleSeat = seat;
      }
    } else if (verb === "role") {
      s.roles[seat] = words[2];
      s.roleSeat = null;
      s.step = "play";
      advanceTurn(s, seat);
    } else if (verb === "support") {
      const k = Number(words[2]);
      s.faceDown[seat][SUPPORT] -= k;
      s.faceUp[seat][SUPPORT] += k;
      s.supportQueue.shift();
      if (s.supportQueue.length === 0) resolveMutiny(s);
    } else if (verb === "sell") {
      s.sales[seat] = parseSales(s, words[2]);
      s.saleQueue.shift();
      if (s.saleQueue.length === 0) scoreSales(s);
    } else if (verb === "discard") {
      const pool = s.rules.discard_pool === "hand" ? null : s.loadmasterDrawn;
      for (const w of words.slice(2)) {
        const c = CARDS.indexOf(w);
        s.hands[seat][c] -= 1;
        if (pool) pool[c] -= 1;
        s.discard[c] += 1;
      }
      s.draws.shift();
      s.loadmasterDrawn = zeros();
    }
  }
  settle(s);
  return s;
}

function parseSales(state, text) {
  if (text === "none") return [];
  return text.split(",").map((part) => {
    const [name, card, k] = part.split(":");
    const pos = state.rules.islands.findIndex((isl) => isl.name === name);
    return [pos, CARDS.indexOf(card), Number(k)];
  });
}

function advanceTurn(s, seat) {
  // next seat (clockwise, or the other way in a mutation) that has not passed
  s.step = "play";
  const dir = MUT === "turn-order-ccw" ? s.players - 1 : 1;
  let p = seat;
  for (let i = 0; i < s.players; i++) {
    p = (p + dir) % s.players;
    if (s.passedWith[p] === null) {
      s.turn = p;
      return;
    }
  }
  reveal(s);
}

function roleSeat(s, role) {
  const i = s.roles.indexOf(role);
  return i < 0 ? null : i;
}

function reveal(s) {
  s.turn = null;
  const mutineer = roleSeat(s, "mutineer");
  if (mutineer === null) {
    s.mutinyWon = false;
    rolePoints(s);
    return;
  }
  s.mutineerDest = destination(s, s.passedWith[mutineer]);
  const sides = new Set([s.captain, mutineer, roleSeat(s, "mate"), roleSeat(s, "cabin_boy")]);
  s.supportQueue = clockwiseFrom(s, s.captain).filter((p) => sides.has(p));
  s.step = "support";
}

function resolveMutiny(s) {
  const mate = roleSeat(s, "mate");
  const boy = roleSeat(s, "cabin_boy");
  const mutineer = roleSeat(s, "mutineer");
  const up = (p) => (p === null ? 0 : s.faceUp[p][SUPPORT]);
  let captainSide = up(s.captain) + up(mate);
  if (mate !== null && MUT !== "mate-no-strength") captainSide += 1;
  const mutinySide = up(mutineer) + up(boy);
  s.mutinyWon = MUT === "tie-to-captain" ? mutinySide > captainSide : mutinySide >= captainSide;
  rolePoints(s);
}

function rolePoints(s) {
  const island = (pos) => s.rules.islands[pos];
  s.roundCaptain = s.captain;
  if (s.mutinyWon) {
    const mutineer = roleSeat(s, "mutineer");
    s.scores[mutineer] += island(s.mutineerDest).ship;
    s.captain = mutineer;
    s.winningDest = s.mutineerDest;
    const boy = roleSeat(s, "cabin_boy");
    if (boy !== null) s.scores[boy] += MUT === "cabin-boy-three" ? 3 : s.rules.cabin_boy_points;
  } else {
    s.scores[s.captain] += island(s.captainDest).ship;
    s.winningDest = s.captainDest;
    const mate = roleSeat(s, "mate");
    if (mate !== null) {
      s.scores[s.captain] -= s.offer;
      s.scores[mate] += MUT === "mate-no-bonus" ? s.offer : 1 + s.offer;
    }
  }
  let first = s.rules.sale_order === "round_captain" ? s.roundCaptain : s.captain;
  if (MUT === "sale-order-round-captain") first = s.roundCaptain;
  s.saleQueue = clockwiseFrom(s, first);
  s.step = "sell";
}

function scoreSales(s) {
  const merchant = roleSeat(s, "merchant");
  for (const pos of s.active) {
    const island = s.rules.islands[pos];
    const sold = s.sales.map((list) => list.filter(([p]) => p === pos).reduce((a, [, , k]) => a + k, 0));
    const most = Math.max(...sold);
    if (most === 0) continue;
    const leaders = [];
    sold.forEach((k, p) => {
      if (k === most) leaders.push(p);
    });
    for (const p of leaders) {
      let value;
      if (p === merchant && MUT !== "merchant-no-bonus") value = island.values[0];
      else if (leaders.length <= 3) value = island.values[leaders.length - 1];
      else value = MUT === "four-way-pays" ? island.values[2] : 0;
      s.scores[p] += value;
    }
  }
  const last = s.round >= roundsFor(s.rules, s.players);
  if (last && MUT !== "last-round-draws") {
    s.step = "over";
    return;
  }
  endRound(s, last);
}

function endRound(s, last) {
  // 6. the ship sails
  const dest = s.winningDest;
  s.active = dest === s.start ? [dest] : [s.start, dest].sort((a, b) => a - b);
  s.start = dest;
  // 7. clean-up
  for (let p = 0; p < s.players; p++) {
    for (let c = 0; c < CARDS.length; c++) {
      s.discard[c] += s.faceUp[p][c];
      s.hands[p][c] += s.faceDown[p][c];
    }
    s.faceUp[p] = zeros();
    s.faceDown[p] = zeros();
    s.passedWith[p] = null;
  }
  // 8. drawing, from the captain clockwise
  const loadmaster = roleSeat(s, "loadmaster");
  s.draws = clockwiseFrom(s, s.captain).map((p) => {
    const need = s.rules.hand_size - total(s.hands[p]);
    const isLoadmaster = p === loadmaster;
    return { seat: p, left: need + (isLoadmaster ? loadmasterExtra(s) : 0), loadmaster: isLoadmaster };
  });
  s.afterDraws = last ? "over" : "next";
  s.step = "draw";
}

function drawCard(s, card) {
  if (total(s.deck) === 0) reshuffle(s);
  s.deck[card] -= 1;
  const entry = s.draws[0];
  s.hands[entry.seat][card] += 1;
  if (entry.loadmaster) s.loadmasterDrawn[card] += 1;
  entry.left -= 1;
  const eager = s.rules.reshuffle === "when_empty" || MUT === "reshuffle-eager";
  if (eager && total(s.deck) === 0 && total(s.discard) > 0) reshuffle(s);
}

function reshuffle(s) {
  s.deck = s.discard;
  s.discard = zeros();
}

function settle(s) {
  // move through the automatic steps between draws, discards and rounds
  if (s.step !== "draw" && s.step !== "discard") return;
  while (s.draws.length > 0 && s.draws[0].left === 0 && !s.draws[0].loadmaster) s.draws.shift();
  if (s.draws.length > 0) {
    if (s.draws[0].left === 0) {
      s.step = "discard";
    } else {
      s.step = "draw";
      // a card must be drawn: an empty deck takes the discard pile now
      if (total(s.deck) === 0) reshuffle(s);
    }
    return;
  }
  if (s.afterDraws === "over") {
    s.step = "over";
    return;
  }
  if (s.afterDraws === "next") {
    s.round += 1;
    s.roles = s.roles.map(() => null);
    s.sales = s.sales.map(() => null);
    s.offer = 0;
  }
  s.afterDraws = null;
  s.step = "offer";
}

function scores(state) {
  return state.scores.slice();
}

module.exports = {
  CARDS,
  ROLES,
  MUTATIONS,
  SUPPORTED,
  CHANCE,
  RulesError,
  UnsupportedError,
  IllegalAction,
  newGame,
  currentPlayer,
  legalActions,
  chanceOutcomes,
  apply,
  scores,
  makeRules,
};
