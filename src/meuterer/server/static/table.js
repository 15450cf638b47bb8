// A table: the board from this seat's view, its legal actions (moves.js), the log in words.
// Every text from the server goes in with textContent; the board is the server's SVG.
"use strict";

const tableId = decodeURIComponent(location.pathname.split("/").pop());
const token = new URLSearchParams(location.hash.slice(1)).get("token");
const key = browserKey();
let socket = null;
let at = 0;
let lines = [];
let mySeat = null;
let retry = 500;
let over = false;
let invite = null;
let deadline = null;  // when the turn's time runs out (this page's clock), or null: no clock
let clockSeat = null;
let yourTurn = false;
let started = false;
let leaving = false;
let myName = "";  // the seat's name, to take it back from the lobby after leaving  // this page asked to leave: the server's close is no loss of the seat

const $ = (id) => document.getElementById(id);

// This browser's key (see lobby.js): sent with the seat's token, so that the table knows which
// browser holds which seat, and that a socket dropped for not keeping up is told why on return.
function browserKey() {
  let made = localStorage.getItem("meuterer-key");
  if (!made) {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    made = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    localStorage.setItem("meuterer-key", made);
  }
  return made;
}

function say(text) { $("notice").textContent = text || ""; }

function connect() {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  socket = new WebSocket(scheme + location.host + "/ws/" + encodeURIComponent(tableId));
  socket.addEventListener("open", () => {
    retry = 500;
    socket.send(JSON.stringify(token ? {token, key} : {watch: true, key}));
  });
  socket.addEventListener("message", (event) => receive(JSON.parse(event.data)));
  socket.addEventListener("close", (event) => {
    $("status").textContent = "disconnected";
    if (event.code === 4001 && token && !leaving) forgetSeat(tableId);  // the seat is no longer this page's
    if (event.code === 4001 || event.code === 4003 || event.code === 4004) {
      say(event.reason || "closed");
      return;
    }
    if (event.code === 4008) say("The server dropped this page's connection (" + event.reason + "); reconnecting.");
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 8000);
  });
}

// The rematch's table: a page given its seat there goes at once; any other is shown the way.
function goRematch(table, seatToken) {
  const url = "/table/" + encodeURIComponent(table);
  if (seatToken) { location.href = url + "#token=" + encodeURIComponent(seatToken); return; }
  const link = $("rematch-link");
  link.href = url;
  link.hidden = false;
}

function receive(frame) {
  if (frame.type === "error") { if (token) forgetSeat(tableId); say(frame.reason); return; }
  if (frame.type === "rematch") { goRematch(frame.table, frame.token); return; }
  if (frame.type === "chat") { chatLine(frame); return; }
  if (frame.type === "refused") { say("Refused: " + frame.reason); movesRefused(); return; }
  if (frame.type === "snapshot") {
    lines = frame.lines.slice();
    mySeat = frame.seat;
    invite = frame.invite || null;
    if (token && mySeat !== null) rememberSeat(tableId, (invite && invite.title) || "", mySeat, token);
    $("chat").replaceChildren();
    (frame.chat || []).forEach(chatLine);
    $("chat-form").hidden = mySeat === null;
    if (frame.stale) say("The game had moved on; here is the table as it is now.");
    if (frame.dropped) say("This page's last connection was closed by the server: " + frame.dropped);
    if (frame.rematch) goRematch(frame.rematch, null);
  } else if (frame.type === "update") {
    lines = lines.slice(0, frame.lines_from).concat(frame.lines);
    say("");
  } else { return; }
  at = frame.at;
  render(frame);
}

// The standings at the end: each player's total, role points, sales and rounds, winners marked.
function standings(table) {
  $("standings").hidden = !table;
  if (!table) return;
  const cell = (tag, text) => { const c = document.createElement(tag); c.textContent = text; return c; };
  const head = document.createElement("tr");
  ["", "player", "total", "role points", "sales", "rounds (roles + sales)"].forEach((t) => head.append(cell("th", t)));
  const rows = table.rows.map((row, rank) => {
    const tr = document.createElement("tr");
    if (row.winner) tr.className = "winner";
    const rounds = row.rounds.map((r) => r.round + ": " + r.roles + " + " + r.sales).join(", ");
    [(row.winner ? "winner " : "") + (rank + 1) + ".", "p" + row.seat + " " + row.name, row.total, row.roles,
      row.sales, rounds].forEach((t) => tr.append(cell("td", String(t))));
    return tr;
  });
  $("standings-table").replaceChildren(head, ...rows);
  $("replay-end").href = "/api/tables/" + encodeURIComponent(tableId) + "/replay";
}

function render(frame) {
  const state = frame.state;
  over = state.winners !== null;
  started = frame.started;
  $("who").textContent = mySeat === null ? "Watching" : "You are p" + mySeat + " (" + frame.seats[mySeat].name + ")";
  $("board").innerHTML = state.svg;  // made by meuterer.svg on the server from this seat's view (escaped there)
  let status;
  if (over) status = "Game over: won by " + state.winners.map((p) => "p" + p + " " + frame.seats[p].name).join(" and ");
  else if (!frame.started) status = "Waiting for players: " + frame.seats.filter((s) => s.open || s.asked).length + " open seat(s)";
  else if (state.to_act === mySeat) status = "Your turn";
  else status = "Waiting for p" + state.to_act + " (" + frame.seats[state.to_act].name + ")";
  $("status").textContent = status;
  yourTurn = !over && frame.started && state.to_act === mySeat && state.legal.length > 0;
  turnAlert(yourTurn, at, (invite && invite.title) || "a table");  // alerts.js: sound, notification
  clockSeat = frame.turn ? frame.turn.seat : null;
  deadline = frame.turn ? Date.now() + frame.turn.left * 1000 : null;
  tick();
  $("hint").textContent = state.hint;
  $("help").hidden = !state.hint;
  document.body.dataset.seat = mySeat === null ? "" : String(mySeat);
  const frameAt = at;  // moves.js: the buttons, the board's clicks, the confirm step, forced moves
  const send = (action) => socket.send(JSON.stringify({act: action, at: frameAt}));
  showMoves(state.legal, at, mySeat !== null && !over, send);
  standings(state.standings);
  $("scores").textContent = state.scores.map((s, p) => "p" + p + " " + frame.seats[p].label + ": " + s).join("   ");
  const log = $("log");
  log.replaceChildren(...lines.concat(frame.pending ? [frame.pending] : []).map((line) => {
    const p = document.createElement("p");
    p.textContent = line;
    return p;
  }));
  log.scrollTop = log.scrollHeight;
  const mine = mySeat === null ? null : frame.seats[mySeat];
  if (mine) myName = mine.name || "";
  $("take-back").hidden = !(mine && mine.stand_in);
  $("leave").hidden = mine === null || over;
  $("rematch").hidden = mine === null || !over;
  $("rematch-bots").hidden = $("rematch").hidden || frame.seats.findIndex((s) => !s.open && s.bot === null) !== mySeat;
  $("asked").hidden = !(mine && mine.asked);
  hostButtons(frame);
  inviteBox(frame);
  $("record").href = "/api/tables/" + encodeURIComponent(tableId) + "/record";
  $("replay").href = $("record").href.replace("/record", "/replay");
  $("watch").href = "/table/" + encodeURIComponent(tableId);
  $("rules").href = "/rules/" + encodeURIComponent(tableId);
  document.body.dataset.at = String(at);
  document.body.dataset.over = String(over);
}

// The host (the lowest-numbered seat a person holds) may let someone else take a seat that
// was left during the game; until then only its player, from the same browser, may take it.
function hostButtons(frame) {
  let box = $("host");
  if (!box) {
    box = document.createElement("div");
    box.id = "host";
    $("actions").after(box);
  }
  box.replaceChildren();
  const host = frame.seats.findIndex((s) => !s.open && s.bot === null);
  if (mySeat === null || host !== mySeat) return;
  frame.seats.forEach((seat, index) => {
    if (!seat.reserved) return;
    const button = document.createElement("button");
    button.className = "release";
    button.textContent = "Let someone else take seat " + index;
    button.addEventListener("click", async () => {
      try { await post("release", {seat: index}); } catch (error) { say(error.message); }
    });
    box.append(button);
  });
}

// A seat's page, while seats are open, shows the table's invite link (the lobby, with its code)
// and a button that copies it.
function inviteBox(frame) {
  if (invite) $("title").textContent = invite.title;
  const show = Boolean(invite && invite.code) && !over && frame.seats.some((s) => s.open);
  $("invite").hidden = !show;
  if (!show) return;
  $("invite-link").value = location.origin + "/?join=" + encodeURIComponent(invite.code);
  $("invite-code").textContent = invite.code;
}

// The turn alert (the tab's title) and the turn's countdown, redrawn twice a second.
function tick() {
  const name = "Meuterer: " + ((invite && invite.title) || "a table");
  document.title = yourTurn ? "\u25B6 Your turn \u2014 " + name : name;
  const clock = $("clock");
  if (deadline === null) { clock.textContent = ""; return; }
  const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
  const text = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
  clock.textContent = (clockSeat === mySeat ? "your time: " : "p" + clockSeat + "'s time: ") + text;
  clock.classList.toggle("short", left <= 15);
}

// One chat line, as text (a line with markup shows the markup).
function chatLine(line) {
  const p = document.createElement("p");
  p.textContent = "p" + line.seat + " " + line.name + ": " + line.text;
  const box = $("chat");
  box.append(p);
  box.scrollTop = box.scrollHeight;
}

function sendChat(text) {
  if (text && socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({chat: text}));
}

async function copyInvite() {
  const field = $("invite-link");
  try { await navigator.clipboard.writeText(field.value); say("Invite link copied."); }
  catch (error) { field.select(); say("Select the link and copy it."); }
}

async function post(action, extra) {
  const response = await fetch("/api/tables/" + encodeURIComponent(tableId) + "/" + action, {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify({token, key, ...extra})});
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error || response.statusText);
  return answer;
}

// During the game a seat's record is its own: the token goes in a POST body (a form, so that
// the browser downloads it or opens the replay page), never in a URL the server would log.
function postLink(event) {
  if (!token || over) return;
  event.preventDefault();
  const form = document.createElement("form");
  form.method = "post";
  form.action = event.currentTarget.href;
  form.target = event.currentTarget.target || "";
  form.hidden = true;
  const field = document.createElement("input");
  field.type = "hidden";
  field.name = "token";
  field.value = token;
  form.append(field);
  document.body.append(form);
  form.submit();
  form.remove();
}

window.addEventListener("DOMContentLoaded", () => {
  $("record").addEventListener("click", postLink);
  $("replay").addEventListener("click", postLink);
  $("copy").addEventListener("click", copyInvite);
  setInterval(tick, 500);
  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    sendChat($("chat-text").value.trim());
    $("chat-text").value = "";
  });
  document.querySelectorAll("#chat-form .quick").forEach((b) => b.addEventListener("click", () => sendChat(b.textContent)));
  $("take-back").addEventListener("click", () => socket.send(JSON.stringify({take_back: true})));
  $("leave").addEventListener("click", () => askConfirm(started  // the confirm step of moves.js
    ? "Leave the table? A bot plays your seat until you come back to it from this browser."
    : "Leave the table? Your seat is open to anyone again.", async () => {
    // a started game keeps the seat for its holder to come back to (the lobby offers it)
    leaving = started;
    try {
      await post("leave");
      if (started) markLeft(tableId, myName, invite && invite.code); else forgetSeat(tableId);
      location.href = "/";
    } catch (error) { leaving = false; say(error.message); }
  }));
  $("accept").addEventListener("click", () => post("accept").catch((error) => say(error.message)));
  $("decline").addEventListener("click", async () => {
    try { await post("decline"); forgetSeat(tableId); location.href = "/"; } catch (error) { say(error.message); }
  });
  $("rematch").addEventListener("click", async () => {
    try {
      const answer = await post("rematch", $("rematch-bot").checked ? {if_declined: "greedy"} : {});
      goRematch(answer.table, answer.token);  // a new page: the old one stays on the finished table
    } catch (error) { say(error.message); }
  });
  connect();
});
