// The lobby: open a table, list the tables, join a seat. Text goes in with textContent only.
"use strict";

// This browser's key: random, made once and kept in localStorage, sent when it takes a seat so
// that a table knows which browser holds which seat (one person, one seat).
function browserKey() {
  let key = localStorage.getItem("meuterer-key");
  if (!key) {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    key = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    localStorage.setItem("meuterer-key", key);
  }
  return key;
}

async function post(url, data) {
  const response = await fetch(url, {method: "POST", headers: {"Content-Type": "application/json"},
                                     body: JSON.stringify(data)});
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error || response.statusText);
  return answer;
}

function go(answer) {
  window.location.href = "/table/" + encodeURIComponent(answer.table) + "#token=" + encodeURIComponent(answer.token);
}

// The rule options chosen in the form, as the server reads them.
function chosenRules() {
  const rules = {};
  if (document.getElementById("pirates").checked) rules.pirates = true;
  const rounds = document.getElementById("rounds").value;
  if (rounds) rules.rounds = Number(rounds);
  return rules;
}

// A select per seat but seat 0: open, or one of ``menu``, the bots the server offers at a table
// of these players and rules (``bot_menu``: at most one per level). A seat keeps the level
// chosen before, played by this table's bot of that level.
function seatChoices(menu) {
  const players = Number(document.getElementById("players").value);
  const box = document.getElementById("seats");
  const before = {};
  for (const select of box.querySelectorAll("select")) {
    const option = select.selectedOptions[0];
    if (option && option.dataset.level) before[select.id] = option.dataset.level;
  }
  box.replaceChildren();
  for (let seat = 1; seat < players; seat++) {
    const label = document.createElement("label");
    label.append("Seat " + seat + " ");
    const select = document.createElement("select");
    select.id = "seat-" + seat;
    const human = document.createElement("option");
    human.value = ""; human.textContent = "a player (open seat)";
    select.append(human);
    select.value = "";  // open for a friend unless a bot is chosen for the seat
    for (const choice of menu) {
      const option = document.createElement("option");
      option.value = choice.spec; option.textContent = choice.label; option.title = choice.description;
      option.dataset.level = choice.level;
      select.append(option);
      if (before[select.id] === choice.level) option.selected = true;
    }
    label.append(select);
    box.append(label);
  }
  const notes = document.createElement("ul");
  notes.id = "bot-menu";
  for (const choice of menu) {
    const item = document.createElement("li");
    item.textContent = choice.label + ": " + choice.description;
    notes.append(item);
  }
  if (menu.length) box.append(notes);
}

// Asks the server which bots it offers at the table the form describes, then rebuilds the
// seats' choices (only the latest answer counts when the form changes quickly).
let menuAsked = 0;
let menuNotice = null;  // the notice a refused question left, cleared by the next answer
async function botMenu() {
  const asked = ++menuAsked;
  const players = document.getElementById("players").value;
  const query = "?players=" + encodeURIComponent(players) + "&rules=" + encodeURIComponent(JSON.stringify(chosenRules()));
  const response = await fetch("/api/tables" + query);
  const data = await response.json();
  if (asked !== menuAsked) return;
  const notice = document.getElementById("notice");
  if (!response.ok) { menuNotice = notice.textContent = data.error || response.statusText; return; }
  if (menuNotice !== null && notice.textContent === menuNotice) notice.textContent = "";
  menuNotice = null;
  seatChoices(data.bot_menu);
  document.getElementById("seats").dataset.players = players;
}

// The seats of ``table`` as text and, for each open seat, a button that takes it (with the
// invite code of a private table).
function seatRow(table, seats, actions, code) {
  table.seats.forEach((seat, index) => {
    const span = document.createElement("span");
    span.textContent = "p" + index + ": " + (seat.open ? "open" : seat.name) + (seat.stand_in ? " (stand-in)" : "") +
      (seat.reserved ? " (left: kept for its player)" : "") + "  ";
    seats.append(span);
    if (seat.open) {
      const button = document.createElement("button");
      button.textContent = "Sit at seat " + index;
      button.className = "join";
      button.dataset.seat = String(index);
      button.addEventListener("click", async () => {
        try {
          const name = document.getElementById("name").value || ("p" + index);
          go(await post("/api/tables/" + encodeURIComponent(table.table) + "/join",
                        {seat: index, name, key: browserKey(), code}));
        } catch (error) { document.getElementById("notice").textContent = error.message; }
      });
      actions.append(button);
    }
  });
}

function describe(table) {
  const turn = table.turn_seconds === null ? "no turn limit" : table.turn_seconds + " s a turn";
  return (table.title || table.table) + (table.host ? ", host " + table.host : "") + ", " + turn +
    (table.started ? " (playing)" : " (waiting)");
}

async function refresh() {
  const data = await (await fetch("/api/tables")).json();
  const body = document.getElementById("tables");
  body.replaceChildren();
  for (const table of data.tables) {
    const row = document.createElement("tr");
    const id = document.createElement("td");
    id.textContent = describe(table);
    const seats = document.createElement("td");
    const actions = document.createElement("td");
    seatRow(table, seats, actions, null);
    const watch = document.createElement("a");
    watch.href = "/table/" + encodeURIComponent(table.table);
    watch.textContent = "watch";
    actions.append(watch);
    row.append(id, seats, actions);
    body.append(row);
  }
}

// An invite (``/?join=CODE``, or a code typed in): the table and its free seats.
async function invited(code) {
  const data = await (await fetch("/api/tables?code=" + encodeURIComponent(code))).json();
  const box = document.getElementById("invited");
  if (!data.tables.length) {
    document.getElementById("notice").textContent = "No table waits with the invite code " + code + ".";
    box.hidden = true;
    return;
  }
  const table = data.tables[0];
  document.getElementById("invited-title").textContent = describe(table);
  const seats = document.getElementById("invited-seats");
  seats.replaceChildren();
  const buttons = document.createElement("span");
  seatRow(table, seats, buttons, code);
  seats.append(document.createElement("br"), buttons);
  box.hidden = false;
}

// The tables where this browser held a seat (seats.js): "Back to your seat" for those not over,
// and every game, a finished one with its replay (and its standings while the server holds it).
// The tables the server no longer knows are forgotten. The token goes only into the address.
async function mine() {
  const entries = mySeats();
  const box = document.getElementById("mine");
  if (!entries.length) { box.hidden = true; return; }
  const ids = entries.map((e) => encodeURIComponent(e.table)).join(",");
  const found = await (await fetch("/api/status?tables=" + ids)).json();
  const kept = entries.filter((e) => found[e.table]);
  if (kept.length !== entries.length) keepSeats(kept);
  const back = document.getElementById("back");
  const games = document.getElementById("games");
  back.replaceChildren();
  games.replaceChildren();
  const words = {waiting: "waiting for players", playing: "playing", over: "over", archived: "over"};
  for (const entry of kept) {
    const state = found[entry.table].state;
    const name = (entry.title || entry.table) + ", seat p" + entry.seat;
    const item = document.createElement("li");
    item.textContent = name + " (" + words[state] + ", " + new Date(entry.when).toLocaleString() + ") ";
    if (state === "over" || state === "archived") {
      const replay = document.createElement("a");
      replay.href = "/api/tables/" + encodeURIComponent(entry.table) + "/replay";
      replay.textContent = "replay";
      item.append(replay);
      if (state === "over") {
        const standings = document.createElement("a");
        standings.href = "/table/" + encodeURIComponent(entry.table);
        standings.textContent = "standings";
        item.append(" ", standings);
      }
    } else {
      const row = document.createElement("li");
      row.textContent = name + " (" + words[state] + ") ";
      const button = document.createElement("button");
      button.className = "back";
      button.textContent = "Back to your seat";
      button.addEventListener("click", async () => {
        if (!entry.left) { go({table: entry.table, token: entry.token}); return; }
        try {  // left during the game: the seat is kept for this browser, taken again by joining it
          go(await post("/api/tables/" + encodeURIComponent(entry.table) + "/join",
                        {seat: entry.seat, name: entry.name || "", key: browserKey(), code: entry.code || undefined}));
        } catch (error) { document.getElementById("notice").textContent = error.message; }
      });
      row.append(button);
      back.append(row);
    }
    games.append(item);
  }
  document.getElementById("back-box").hidden = !back.children.length;
  box.hidden = !kept.length;
}

window.addEventListener("DOMContentLoaded", async () => {
  await mine().catch(() => {});
  await refresh();
  await botMenu().catch(() => {});
  const code = new URLSearchParams(location.search).get("join");
  if (code) await invited(code);
  document.getElementById("by-code").addEventListener("submit", async (event) => {
    event.preventDefault();
    await invited(document.getElementById("code").value.trim());
  });
  for (const id of ["players", "pirates", "rounds"]) {
    document.getElementById(id).addEventListener("change", () => botMenu().catch(() => {}));
  }
  document.getElementById("create").addEventListener("submit", async (event) => {
    event.preventDefault();
    const players = Number(document.getElementById("players").value);
    const rules = chosenRules();
    const chosen = {};
    for (let seat = 1; seat < players; seat++) {
      const select = document.getElementById("seat-" + seat);  // none if the menu never came
      const value = select ? select.value : "";
      if (value) chosen[seat] = value;
    }
    try {
      const turn = document.getElementById("turn").value;
      go(await post("/api/tables", {players, rules, bots: chosen, seat: 0, key: browserKey(),
                                    name: document.getElementById("name").value,
                                    title: document.getElementById("title").value,
                                    private: document.getElementById("private").checked,
                                    ...(turn === "default" ? {} : {turn_seconds: turn ? Number(turn) : null})}));
    } catch (error) { document.getElementById("notice").textContent = error.message; }
  });
  setInterval(refresh, 5000);
});
