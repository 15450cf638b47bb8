// The seats this browser holds, kept in localStorage ("meuterer-seats"): for each table where a
// page held a seat, {table, title, seat, token, when}; a seat left during the game (a stand-in
// bot plays it, kept for this browser) also has {left: true, name, code}: its token is dead, and
// the lobby takes the seat again by joining it. The lobby reads them for "Back to your
// seat" and "Your games". A token is only ever put in a table's address after "#"; never in a
// page's text.
"use strict";

const SEATS_KEY = "meuterer-seats";
const MOST_SEATS = 50;

function mySeats() {
  try {
    const found = JSON.parse(localStorage.getItem(SEATS_KEY) || "[]");
    return Array.isArray(found) ? found.filter((e) => e && typeof e.table === "string" && typeof e.token === "string") : [];
  } catch (error) { return []; }
}

function keepSeats(entries) {
  entries.sort((a, b) => b.when - a.when);
  localStorage.setItem(SEATS_KEY, JSON.stringify(entries.slice(0, MOST_SEATS)));
}

function rememberSeat(table, title, seat, token) {
  const others = mySeats().filter((e) => e.table !== table);
  keepSeats(others.concat([{table, title, seat, token, when: Date.now()}]));
}

function markLeft(table, name, code) {
  keepSeats(mySeats().map((e) => (e.table === table ? {...e, left: true, name, code, when: Date.now()} : e)));
}

function forgetSeat(table) { keepSeats(mySeats().filter((e) => e.table !== table)); }
