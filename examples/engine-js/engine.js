// Meuterer in plain JavaScript (Node >= 18, no dependencies): the base game, every
// rule option, the pirate variant and the shuffled ring.
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
const PIRATE = 6;
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
  pirates: [false, true],
  ring: ["fixed", "shuffled"],
  sale_order: ["new_captain", "round_captain"],
  withholding: [false, true],
  discard_pool: ["drawn", "hand"],
  reshuffle: ["on_draw", "when_empty"],
  pirates_rob_at_start: [false, true],
  pirates_return: [false, true],
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
  "no-reshuffle": "the discard pile never becomes the new deck (a draw from an empty deck has no outcome)",
  "offer-to-two": "the captain may offer only 0 to 2",
  "turn-order-ccw": "phase 2 goes counter-clockwise",
  "last-round-draws": "the last round still plays phases 6 to 10 before the game ends",
  "cabin-boy-three": "the cabin boy scores 3 after a successful mutiny",
  "destination-minus-one": "a destination is N - 1 islands clockwise (at least 0)",
  "withholding-allowed": "goods may be held back from sale under the default rules",
  "no-robbery": "the pirate ship never robs the merchant ship",
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
    if (!(key in DEFAULT_RULES)) throw new UnsupportedError(`unknown rule option ${key}`);
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

function clockwiseFrom(state, first) {
  const seats = [];
  for (let i = 0; i < state.players; i++) seats.push((first + i) % state.players);
  return seats;
}

function destination(state, n) {
  let steps = n;
  if (MUT === "destination-minus-one") steps = Math.max(0, n - 1);
  return (state.start + steps) % state.islands.length;
}

function buys(island, card) {
  return card < SUPPORT && (island.buys === null || island.buys === card);
}

// ---------------------------------------------------------------- new game

function newGame(players, firstCaptain, givenRules) {
  if (players !== 3 && players !== 4) throw new UnsupportedError(`${JSON.stringify(players)} players`);
  if (!Number.isInteger(firstCaptain) || firstCaptain < 0 || firstCaptain >= players) {
    throw new RulesError("first_captain must be a seat");
  }
  const rules = makeRules(givenRules);
  const state = {
    rules,
    players,
    islands: rules.islands, // in ring order, position 0 first
    pirate: null, // the pirate ship's ring position (the variant only)
    round: 1,
    captain: firstCaptain,
    offer: null, // null until the captain offers
    captainDest: null,
    mutineerDest: null,
    mutiny: null, // true / false once a mutiny is resolved, else null
    revealed: false,
    roleOrder: [],
    rolesSeen: [], // per seat: the roles in the centre when he chose, null otherwise
    drawnNow: zeros(), // the cards the seat now drawing has drawn in this turn
    toAct: firstCaptain, // the seat to decide or to draw for (its last value at the end)
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
    draws: [], // the seats still to draw: {seat, left: cards still to draw, loadmaster}
    afterDraws: null, // what follows the draws: "offer" (the deal), "next" round, "over"
    loadmasterDrawn: zeros(),
    turn: firstCaptain,
    roleSeat: null,
    supportQueue: [],
    saleQueue: [],
    sales: [], // per seat: list of [island, card, count]
    mutinyWon: false,
    roundCaptain: firstCaptain, // the captain during this round (sale_order="round_captain")
    winningDest: null, // where the ship sails after phase 5
  };
  for (let p = 0; p < players; p++) {
    state.hands.push(zeros());
    state.faceUp.push(zeros());
    state.faceDown.push(zeros());
    state.passedWith.push(null);
    state.roles.push(null);
    state.scores.push(0);
    state.sales.push(null);
    state.rolesSeen.push(null);
  }
  // The deal: five cards to the captain, then five to the next seat clockwise, ...
  state.draws = clockwiseFrom(state, firstCaptain).map((p) => ({ seat: p, left: rules.hand_size, loadmaster: false }));
  state.afterDraws = "offer"; // the deal, then the first offer
  placePirates(state); // at Piratennest; moved with it when the ring is arranged
  if (rules.ring === "shuffled") {
    state.step = "ring";
    return state;
  }
  settle(state);
  rest(state);
  return state;
}

function piratennest(state) {
  return state.islands.findIndex((island) => island.name === "piratennest");
}

function placePirates(state) {
  if (state.rules.pirates) state.pirate = piratennest(state);
}

// The shuffled ring: Hochland (the table's first island) stays first, every order of the
// other eleven is an outcome, each with probability 1/11!.
function ringOutcomes(state) {
  const names = state.rules.islands.map((island) => island.name);
  let ways = 1;
  for (let k = 2; k < names.length; k++) ways *= k;
  return { first: names[0], others: names.slice(1), probability: `1/${ways}` };
}

function arrangement(state, text) {
  // the island table in the order of a `ring` action, or null if it is not an arrangement
  const names = text.slice("ring ".length).split(",");
  const table = state.rules.islands;
  if (names.length !== table.length || names[0] !== table[0].name || new Set(names).size !== names.length) {
    return null;
  }
  const order = names.map((name) => table.find((island) => island.name === name));
  return order.includes(undefined) ? null : order;
}

// ---------------------------------------------------------------- who acts

const CHANCE = "chance";

function currentPlayer(state) {
  switch (state.step) {
    case "over":
      return null;
    case "ring":
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
  const deck = total(state.deck) > 0 || MUT === "no-reshuffle" ? state.deck : state.discard;
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
    const island = state.islands[pos];
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
  const withholding = withholdingAllowed(state);
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
        (o, i) => o === null && unsold.some((g) => buys(state.islands[islands[i]], g)),
      );
      if (bad) continue;
    }
    out.push(combo.map((o, i) => (o ? [islands[i], o[0], o[1]] : null)).filter((o) => o));
  }
  return out;
}

function sellText(state, seat, sales) {
  if (sales.length === 0) return `p${seat} sell none`;
  const parts = sales.map(([pos, g, k]) => `${state.islands[pos].name}:${CARDS[g]}:${k}`);
  return `p${seat} sell ${parts.join(",")}`;
}

function legalActions(state) {
  const seat = currentPlayer(state);
  switch (state.step) {
    case "over":
    case "ring": // 11! outcomes: described by ringOutcomes, never listed
      return [];
    case "draw":
      return chanceOutcomes(state).map(([a]) => a);
    case "offer": {
      const out = [];
      for (let k = 0; k <= maxOffer(state); k++) out.push(`p${seat} offer ${k}`);
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
      return saleOptions(state, seat).map((s) => sellText(state, seat, s));
    case "discard": {
      // Discarding no card (loadmaster_extra 0) is written `none`, like an empty sale.
      return multisets(discardPool(state, seat), loadmasterExtra(state)).map(
        (m) => `p${seat} discard ${cardsText(m) || "none"}`,
      );
    }
    default:
      throw new Error(`bad step ${state.step}`);
  }
}

function loadmasterExtra(state) {
  return MUT === "loadmaster-two" ? Math.min(2, state.rules.loadmaster_extra) : state.rules.loadmaster_extra;
}

// ---------------------------------------------------------------- notation and refusals

const NUMBER = /^(0|[1-9][0-9]{0,5})$/;
const SEAT = /^p([0-3])$/;

// The action's parts, or null when the text is not canonical notation.
function parse(text) {
  if (typeof text !== "string") return null;
  const w = text.split(" ");
  if (w.some((t) => t === "")) return null;
  if (w[0] === "ring") {
    if (w.length !== 2 || w[1].split(",").some((n) => n === "" || n.includes(":"))) return null;
    return { kind: "ring", seat: null };
  }
  if (w[0] === "draw") {
    if (w.length !== 3 || !SEAT.test(w[1]) || !CARDS.includes(w[2])) return null;
    return { kind: "draw", seat: Number(w[1].slice(1)), card: CARDS.indexOf(w[2]) };
  }
  if (w.length < 2 || !SEAT.test(w[0])) return null;
  const seat = Number(w[0].slice(1));
  const kind = w[1];
  const args = w.slice(2);
  switch (kind) {
    case "offer":
    case "support":
      if (args.length !== 1 || !NUMBER.test(args[0])) return null;
      return { kind, seat, k: Number(args[0]) };
    case "play":
      if (args.length !== 1 || !CARDS.includes(args[0])) return null;
      return { kind, seat, card: CARDS.indexOf(args[0]) };
    case "pass":
      return args.length === 0 ? { kind, seat } : null;
    case "role":
      if (args.length !== 1 || !ROLES.includes(args[0])) return null;
      return { kind, seat, role: args[0] };
    case "sell": {
      if (args.length !== 1) return null;
      if (args[0] === "none") return { kind, seat, sales: [] };
      const sales = [];
      for (const part of args[0].split(",")) {
        const bits = part.split(":");
        if (bits.length !== 3 || bits[0] === "" || !CARDS.includes(bits[1]) || !NUMBER.test(bits[2])) return null;
        sales.push({ name: bits[0], card: CARDS.indexOf(bits[1]), k: Number(bits[2]) });
      }
      return { kind, seat, sales };
    }
    case "discard":
      if (args.length === 1 && args[0] === "none") return { kind, seat, cards: [] };
      if (args.length === 0 || args.some((c) => !CARDS.includes(c))) return null;
      return { kind, seat, cards: args.map((c) => CARDS.indexOf(c)) };
    default:
      return null;
  }
}

const KINDS_OF_STEP = {
  ring: ["ring"],
  draw: ["draw"],
  offer: ["offer"],
  play: ["play", "pass"],
  role: ["role"],
  support: ["support"],
  sell: ["sell"],
  discard: ["discard"],
  over: [],
};

// The refusal code of an action that is not legal now (docs/protocol.md, in its order).
function refusal(state, text) {
  const a = parse(text);
  if (a === null) return "malformed";
  if (state.step === "over") return "game-over";
  if (a.seat !== null && a.seat >= state.players) return "no-such-seat";
  if (state.step === "ring" && a.kind === "ring") return arrangement(state, text) === null ? "not-an-arrangement" : "not-legal";
  if (!KINDS_OF_STEP[state.step].includes(a.kind)) return "wrong-step";
  const who = currentPlayer(state);
  const actor = who === CHANCE ? state.draws[0].seat : who;
  if (a.seat !== actor) return "not-your-turn";
  const seat = a.seat;
  switch (a.kind) {
    case "draw": {
      const pile = total(state.deck) > 0 ? state.deck : state.discard;
      return pile[a.card] === 0 ? "not-in-deck" : "not-legal";
    }
    case "offer":
      return a.k > maxOffer(state) ? "out-of-range" : "not-legal";
    case "play":
      return state.hands[seat][a.card] === 0 ? "not-in-hand" : "not-legal";
    case "role":
      return state.roles.includes(a.role) ? "role-taken" : "not-legal";
    case "support":
      return a.k > state.faceDown[seat][SUPPORT] ? "out-of-range" : "not-legal";
    case "sell":
      return sellRefusal(state, seat, a.sales);
    case "discard": {
      if (a.cards.length !== loadmasterExtra(state)) return "wrong-count";
      if (a.cards.some((c, i) => i > 0 && c < a.cards[i - 1])) return "bad-order";
      const pool = discardPool(state, seat);
      const want = zeros();
      for (const c of a.cards) want[c] += 1;
      return want.some((k, c) => k > pool[c]) ? "not-in-hand" : "not-legal";
    }
    default:
      return "not-legal";
  }
}

function sellRefusal(state, seat, sales) {
  const positions = [];
  for (const sale of sales) {
    const pos = state.islands.findIndex((isl) => isl.name === sale.name);
    if (pos < 0) return "no-such-island";
    if (!state.active.includes(pos)) return "island-inactive";
    if (!buys(state.islands[pos], sale.card)) return "not-bought";
    if (sale.k === 0) return "out-of-range";
    positions.push(pos);
  }
  if (positions.some((p, i) => i > 0 && p <= positions[i - 1])) return "bad-order";
  const sold = zeros();
  for (const sale of sales) sold[sale.card] += sale.k;
  if (sold.some((k, c) => k > state.faceUp[seat][c])) return "not-face-up";
  if (!withholdingAllowed(state)) return "must-sell";
  return "not-legal";
}

function maxOffer(state) {
  return MUT === "offer-to-two" ? Math.min(2, state.rules.max_offer) : state.rules.max_offer;
}

function withholdingAllowed(state) {
  return state.rules.withholding || MUT === "withholding-allowed";
}

function discardPool(state, seat) {
  return state.rules.discard_pool === "hand" ? state.hands[seat] : state.loadmasterDrawn;
}

// ---------------------------------------------------------------- apply

// The game after `action`; an IllegalAction carrying its refusal code otherwise.
function apply(state, action) {
  if (state.step === "ring" && parse(action)?.kind === "ring" && arrangement(state, action) !== null) {
    const s = clone(state);
    s.islands = arrangement(state, action);
    placePirates(s);
    s.step = "draw";
    settle(s);
    rest(s);
    return s;
  }
  if (!legalActions(state).includes(action)) {
    throw new IllegalAction(refusal(state, action), `${JSON.stringify(action)} is not legal now`);
  }
  const a = parse(action);
  const s = clone(state);
  const seat = a.seat;
  switch (a.kind) {
    case "draw":
      drawCard(s, a.card);
      break;
    case "offer":
      s.offer = a.k;
      s.step = "play";
      s.turn = s.captain;
      break;
    case "play":
      s.hands[seat][a.card] -= 1;
      s.faceUp[seat][a.card] += 1;
      if (a.card === PIRATE && s.pirate !== null) sailPirates(s, total(s.hands[seat]));
      advanceTurn(s, seat);
      break;
    case "pass":
      s.passedWith[seat] = total(s.hands[seat]);
      s.faceDown[seat] = s.hands[seat];
      s.hands[seat] = zeros();
      if (seat === s.captain) {
        s.captainDest = destination(s, s.passedWith[seat]);
        advanceTurn(s, seat);
      } else {
        s.step = "role";
        s.roleSeat = seat;
        s.rolesSeen[seat] = ROLES.filter((r) => !s.roles.includes(r));
      }
      break;
    case "role":
      s.roleOrder.push(seat);
      s.roles[seat] = a.role;
      s.roleSeat = null;
      advanceTurn(s, seat);
      break;
    case "support":
      s.faceDown[seat][SUPPORT] -= a.k;
      s.faceUp[seat][SUPPORT] += a.k;
      s.supportQueue.shift();
      if (s.supportQueue.length === 0) resolveMutiny(s);
      break;
    case "sell":
      s.sales[seat] = a.sales.map((sale) => [
        s.islands.findIndex((isl) => isl.name === sale.name),
        sale.card,
        sale.k,
      ]);
      s.saleQueue.shift();
      if (s.saleQueue.length === 0) scoreSales(s);
      break;
    case "discard":
      for (const c of a.cards) {
        s.hands[seat][c] -= 1;
        if (s.rules.discard_pool !== "hand") s.loadmasterDrawn[c] -= 1;
        s.discard[c] += 1;
      }
      s.draws.shift();
      s.loadmasterDrawn = zeros();
      s.drawnNow = zeros();
      break;
    default:
      throw new Error(`cannot apply ${action}`);
  }
  settle(s);
  rest(s);
  return s;
}

// Where the game rests after an action: remember who acts.
function rest(s) {
  const who = currentPlayer(s);
  if (who === null) return;
  s.toAct = who === CHANCE ? (s.step === "ring" ? s.toAct : s.draws[0].seat) : who;
}

// The pirate ship sails `steps` islands counter-clockwise; reaching or passing the
// merchant ship (at the start island) robs every face-up card of the round.
function sailPirates(s, steps) {
  const n = s.islands.length;
  let robbed = steps > 0 && s.rules.pirates_rob_at_start && s.pirate === s.start;
  for (let i = 1; i <= steps; i++) if ((s.pirate - i + n * steps) % n === s.start) robbed = true;
  s.pirate = (s.pirate - (steps % n) + n) % n;
  if (MUT === "no-robbery") robbed = false;
  if (!robbed) return;
  for (let p = 0; p < s.players; p++) {
    for (let c = 0; c < CARDS.length; c++) s.discard[c] += s.faceUp[p][c];
    s.faceUp[p] = zeros();
  }
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
  s.revealed = true;
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
  s.mutiny = s.mutinyWon;
  rolePoints(s);
}

function rolePoints(s) {
  const island = (pos) => s.islands[pos];
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
    const island = s.islands[pos];
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
  s.captainDest = null;
  s.mutineerDest = null;
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
  if (s.pirate !== null && s.rules.pirates_return) s.pirate = piratennest(s);
  // 8. drawing, from the captain clockwise
  const loadmaster = roleSeat(s, "loadmaster");
  s.draws = clockwiseFrom(s, s.captain).map((p) => {
    const need = s.rules.hand_size - total(s.hands[p]);
    const isLoadmaster = p === loadmaster;
    return { seat: p, left: need + (isLoadmaster ? loadmasterExtra(s) : 0), loadmaster: isLoadmaster };
  }).filter((entry) => entry.left > 0); // a seat with nothing to draw (a full-handed loadmaster who draws no extra card too) has no turn
  s.afterDraws = last ? "over" : "next";
  s.step = "draw";
}

function drawCard(s, card) {
  if (total(s.deck) === 0) reshuffle(s);
  s.deck[card] -= 1;
  const entry = s.draws[0];
  s.hands[entry.seat][card] += 1;
  if (entry.loadmaster) s.loadmasterDrawn[card] += 1;
  s.drawnNow[card] += 1;
  entry.left -= 1;
  const eager = s.rules.reshuffle === "when_empty";
  if (eager && total(s.deck) === 0 && total(s.discard) > 0) reshuffle(s);
}

function reshuffle(s) {
  if (MUT === "no-reshuffle") return;
  s.deck = s.discard;
  s.discard = zeros();
}

function settle(s) {
  // move through the automatic steps between draws, discards and rounds
  if (s.step !== "draw" && s.step !== "discard") return;
  while (s.draws.length > 0 && s.draws[0].left === 0 && !s.draws[0].loadmaster) {
    s.draws.shift();
    s.drawnNow = zeros();
  }
  if (s.draws.length > 0) {
    if (s.draws[0].left === 0) {
      s.step = "discard";
    } else {
      s.step = "draw"; // from the discard pile if the deck is empty (see drawCard)
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
    s.rolesSeen = s.rolesSeen.map(() => null);
    s.sales = s.sales.map(() => null);
    s.offer = null;
    s.mutiny = null;
    s.revealed = false;
    s.roleOrder = [];
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
  ringOutcomes,
  apply,
  parse,
  refusal,
  scores,
  makeRules,
};
