// The moves of a table page: the legal actions as buttons, the board's things they are about
// (a card of the seat's panel, an island, a role card) made clickable, the confirm step of the
// moves that cannot be taken back, and the opt-in auto-play of a forced move.
// What a move is about comes from the server (each legal action's "about", made from the typed
// action and the seat's view); this file never reads the notation. Texts go in as textContent.
"use strict";

const FORCED_DELAY = 1500;  // ms a forced move waits, with a visible note, before the page plays it
const PILES = {hand: "in your hand", drawn: "just drawn", face_up: "face up", face_down: "face down"};

const moves = {
  legal: [],       // the legal actions of the frame shown, each with its "counts" (thing key -> count)
  at: null,        // the state id of that frame
  send: null,      // sends an action's notation for that frame
  sent: false,     // an action was sent: nothing more until the next frame
  picks: new Map(),  // the things clicked so far: key -> {thing, count}
  island: null,    // the island clicked (the cards clicked next are sold there)
  forced: null,    // the timer of a forced move, or null
  asked: null,     // the state id a move's confirm step was opened at, or null
};

const thingKey = (t) => [t.island || "", t.card || "", t.pile || "", t.role || ""].join("|");
const el = (id) => document.getElementById(id);

function counts(about) {
  const made = new Map();
  for (const thing of about) made.set(thingKey(thing), (made.get(thingKey(thing)) || 0) + (thing.count || 1));
  return made;
}

// Does the move fit the things picked (with one more, ``extra``), and the island clicked?
function fits(choice, extra) {
  const picked = new Map(Array.from(moves.picks, ([k, p]) => [k, p.count]));
  if (extra) picked.set(thingKey(extra), (picked.get(thingKey(extra)) || 0) + 1);
  for (const [key, count] of picked) if ((choice.counts.get(key) || 0) < count) return false;
  return moves.island === null || choice.about.some((t) => t.island === moves.island);
}

function exact(choice) {
  if (choice.counts.size !== moves.picks.size) return false;
  for (const [key, pick] of moves.picks) if (choice.counts.get(key) !== pick.count) return false;
  return true;
}

const candidates = () => moves.legal.filter((c) => fits(c, null));
const picking = () => moves.picks.size > 0 || moves.island !== null;

// The thing a click on a card adds: with its island when one is clicked or only one fits.
function cardThings(card, pile) {
  const islands = new Set();
  moves.legal.forEach((c) => c.about.forEach((t) => { if (t.island) islands.add(t.island); }));
  const options = moves.island !== null ? [moves.island] : [null, ...islands];
  return options.map((island) => (island ? {island, card, pile} : {card, pile}))
    .filter((thing) => moves.legal.some((c) => fits(c, thing)));
}

function islandTitle(name) {
  const text = document.querySelector('#board g.mt-island[data-island="' + CSS.escape(name) + '"] text');
  return text ? text.textContent : name;
}

// The board's things this seat may click now, each with its words for a screen reader.
function boardThings() {
  const things = [];
  if (moves.sent || !moves.legal.length) return things;
  document.querySelectorAll("#board g.mt-island[data-island]").forEach((g) => {
    const island = g.getAttribute("data-island");
    if (island !== moves.island && candidates().some((c) => c.about.some((t) => t.island === island))) {
      things.push([g, "island " + islandTitle(island)]);
    }
  });
  document.querySelectorAll("#board g.mt-role[data-role]").forEach((g) => {
    const role = {role: g.getAttribute("data-role")};
    if (moves.legal.some((c) => fits(c, role))) things.push([g, "role " + g.textContent]);
  });
  const seat = document.body.dataset.seat;
  document.querySelectorAll('#board g.mt-seat[data-seat="' + seat + '"] g.mt-card[data-card]').forEach((g) => {
    const card = g.getAttribute("data-card");
    const pile = g.getAttribute("data-pile");
    if (cardThings(card, pile).length) things.push([g, card + " " + (PILES[pile] || pile)]);
  });
  return things;
}

// Mark what may be clicked (a class, a button's role, a place in the keyboard's order), what
// was picked, and dim the buttons of the moves the picks rule out.
function markBoard() {
  document.querySelectorAll("#board .clickable, #board .picked").forEach((g) => {
    g.classList.remove("clickable", "picked");
    ["tabindex", "role", "aria-label"].forEach((name) => g.removeAttribute(name));
  });
  const things = boardThings();
  const svg = document.querySelector("#board svg");  // a picture, or a group of buttons when some are
  if (svg) svg.setAttribute("role", things.length ? "group" : "img");
  for (const [g, words] of things) {
    g.classList.add("clickable");
    g.setAttribute("tabindex", "0");
    g.setAttribute("role", "button");
    g.setAttribute("aria-label", words);
  }
  if (moves.island !== null) {
    const g = document.querySelector('#board g.mt-island[data-island="' + CSS.escape(moves.island) + '"]');
    if (g) g.classList.add("picked");
  }
  const seat = document.body.dataset.seat;
  for (const {thing} of moves.picks.values()) {
    if (thing.role) continue;
    const g = document.querySelector('#board g.mt-seat[data-seat="' + seat + '"] g.mt-card[data-card="' +
      CSS.escape(thing.card) + '"][data-pile="' + CSS.escape(thing.pile) + '"]');
    if (g) g.classList.add("picked");
  }
  const left = candidates();
  el("actions").querySelectorAll("button.action").forEach((b, k) => {
    b.classList.toggle("unfit", picking() && !left.includes(moves.legal[k]));
  });
  picksBar(left);
}

// What was picked, in words, and the move it makes (or the one move it leaves) as a button.
function picksBar(left) {
  const bar = el("picks");
  bar.hidden = !picking() || moves.sent;
  if (bar.hidden) return;
  const parts = Array.from(moves.picks.values(), ({thing, count}) => thing.role ? "role " + thing.role :
    thing.card + (count > 1 ? " \u00d7" + count : "") + (thing.island ? " on " + islandTitle(thing.island) : ""));
  if (moves.island !== null && !parts.some((p) => p.endsWith(" on " + islandTitle(moves.island)))) {
    parts.push(islandTitle(moves.island) + ": click the cards to sell there");
  }
  const ready = left.filter((c) => exact(c) || left.length === 1);
  el("picks-text").textContent = "Chosen: " + parts.join(", ") +
    (ready.length ? "" : " (" + left.length + " moves fit: click more)");
  el("picks-go").replaceChildren(...ready.map((choice) => {
    const button = document.createElement("button");
    button.className = "pick-go";
    button.textContent = choice.label;
    button.addEventListener("click", () => choose(choice));
    return button;
  }));
}

function clearPicks() {
  moves.picks = new Map();
  moves.island = null;
}

// A click on one of the board's things: a first click that leaves one move plays it (after its
// confirm step, if any); otherwise the things are picked until a move's button is pressed.
function clickThing(g) {
  if (!g.classList.contains("clickable")) return;
  const first = !picking();
  if (g.matches(".mt-island")) {
    moves.island = g.getAttribute("data-island");
  } else {
    let thing;
    if (g.matches(".mt-role")) thing = {role: g.getAttribute("data-role")};
    else {
      const things = cardThings(g.getAttribute("data-card"), g.getAttribute("data-pile"));
      if (things.length > 1) {  // sold on one island or another: the island first
        el("picks").hidden = false;
        el("picks-text").textContent = "Click the island to sell it at first.";
        return;
      }
      thing = things[0];
    }
    const key = thingKey(thing);
    moves.picks.set(key, {thing, count: (moves.picks.has(key) ? moves.picks.get(key).count : 0) + 1});
  }
  const left = candidates();
  if (first && left.length === 1) { clearPicks(); choose(left[0]); return; }
  markBoard();
}

function choose(choice) {
  if (choice.confirm) { askConfirm(choice.confirm, () => sendMove(choice), moves.at); markBoard(); }
  else sendMove(choice);
}

function sendMove(choice) {
  if (moves.sent) return;
  moves.sent = true;
  stopForced();
  el("actions").querySelectorAll("button").forEach((b) => { b.disabled = true; });
  markBoard();
  moves.send(choice.action);
}

// The in-page confirm step: Confirm runs ``then``; Cancel, Escape or (for a move, ``at`` given)
// the next state of the game closes it.
function askConfirm(text, then, at) {
  const box = el("confirm");
  el("confirm-text").textContent = text;
  box.hidden = false;
  moves.asked = at === undefined ? null : at;
  const back = document.activeElement;
  const close = () => {
    box.hidden = true;
    moves.asked = null;
    el("confirm-yes").onclick = el("confirm-no").onclick = null;
    if (back && back.isConnected) back.focus();
  };
  el("confirm-yes").onclick = () => { close(); then(); };
  el("confirm-no").onclick = close;
  el("confirm-yes").focus();
}

function stopForced() {
  if (moves.forced) clearInterval(moves.forced);
  moves.forced = null;
  el("forced-note").textContent = "";
}

// A forced move (the only legal one) is played for the seat that asked for it, after a short
// wait that the page shows; a new frame or unticking the box stops it.
function startForced() {
  stopForced();
  if (!el("forced").checked || moves.legal.length !== 1 || moves.sent) return;
  const choice = moves.legal[0];
  const due = Date.now() + FORCED_DELAY;
  const note = () => {
    const left = due - Date.now();
    if (left <= 0) { sendMove(choice); return; }
    const seconds = Math.ceil(left / 1000);
    el("forced-note").textContent = "Playing \u201c" + choice.label + "\u201d in " + seconds + " s (the only move)";
  };
  moves.forced = setInterval(note, 100);
  note();
}

// A new frame: its legal actions as buttons, the board's things marked, a forced move started;
// ``seated``: the page is a seat's during the game (it may ask for its forced moves). A frame
// of the same state again (someone came or went) keeps what was under way: the picks, the
// question asked, the move sent and a forced move's countdown.
function showMoves(legal, at, seated, send) {
  const again = at === moves.at;
  if (!again) {
    clearPicks();
    if (moves.asked !== null) el("confirm-no").click();
    moves.sent = false;
  }
  moves.legal = legal.map((choice) => ({...choice, counts: counts(choice.about || [])}));
  moves.at = at;
  moves.send = send;
  el("forced-box").hidden = !seated;
  const box = el("actions");
  box.replaceChildren(...moves.legal.map((choice) => {
    const button = document.createElement("button");
    button.className = "action";
    button.dataset.action = choice.action;
    button.disabled = moves.sent;
    button.append(choice.label || choice.action);
    const help = document.createElement("small");
    help.textContent = choice.help;
    button.append(help);
    button.addEventListener("click", () => choose(choice));
    return button;
  }));
  markBoard();
  if (!again || !moves.forced) startForced();
}

// The server refused the move sent: the moves may be chosen again.
function movesRefused() {
  moves.sent = false;
  el("actions").querySelectorAll("button").forEach((b) => { b.disabled = false; });
  markBoard();
}

window.addEventListener("DOMContentLoaded", () => {
  const board = el("board");
  board.addEventListener("click", (event) => {
    const g = event.target.closest && event.target.closest(".clickable");
    if (g) clickThing(g);
  });
  board.addEventListener("keydown", (event) => {
    const g = event.target.closest && event.target.closest(".clickable");
    if (g && (event.key === "Enter" || event.key === " ")) { event.preventDefault(); clickThing(g); }
  });
  el("picks-clear").addEventListener("click", () => { clearPicks(); markBoard(); });
  el("confirm").addEventListener("keydown", (event) => { if (event.key === "Escape") el("confirm-no").click(); });
  const forced = el("forced");
  forced.checked = localStorage.getItem("meuterer-forced") === "on";
  forced.addEventListener("change", () => {
    localStorage.setItem("meuterer-forced", forced.checked ? "on" : "off");
    startForced();
  });
});
