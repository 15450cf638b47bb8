// Turn alerts, both opt-in and remembered in localStorage ("meuterer-alerts"): a short sound made
// with WebAudio (no audio file) when it becomes your turn, and, while the tab is hidden and the
// browser allows it, a notification "Your turn at <table name>". table.js calls turnAlert().
"use strict";

const ALERTS_KEY = "meuterer-alerts";
let alertAudio = null;
let alertedAt = null;

function alertChoices() {
  try { return {sound: false, notify: false, ...JSON.parse(localStorage.getItem(ALERTS_KEY) || "{}")}; }
  catch (error) { return {sound: false, notify: false}; }
}

// The audio context starts only after a click on the page (the browsers' autoplay rule).
function audio() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!alertAudio && Context) alertAudio = new Context();
  if (alertAudio && alertAudio.state === "suspended") alertAudio.resume();
  return alertAudio;
}

// Two short rising tones, 0.3 s in all.
function beep() {
  const context = audio();
  if (!context) return;
  [660, 880].forEach((frequency, k) => {
    const start = context.currentTime + k * 0.15;
    const tone = context.createOscillator();
    const gain = context.createGain();
    tone.frequency.value = frequency;
    gain.gain.setValueAtTime(0.15, start);
    gain.gain.exponentialRampToValueAtTime(0.001, start + 0.14);
    tone.connect(gain).connect(context.destination);
    tone.start(start);
    tone.stop(start + 0.15);
  });
}

// Called on every frame drawn: ``yours`` whether the game waits for this seat, at state ``at``.
// Each decision of yours is told once.
function turnAlert(yours, at, title) {
  if (!yours) { alertedAt = null; return; }
  if (alertedAt === at) return;
  alertedAt = at;
  const chosen = alertChoices();
  if (chosen.sound) beep();
  if (chosen.notify && document.hidden && "Notification" in window && Notification.permission === "granted") {
    const note = new Notification("Your turn at " + title, {tag: "meuterer-turn"});
    note.onclick = () => { window.focus(); note.close(); };
  }
}

window.addEventListener("DOMContentLoaded", () => {
  const sound = document.getElementById("alert-sound");
  const notify = document.getElementById("alert-notify");
  const chosen = alertChoices();
  sound.checked = chosen.sound;
  notify.checked = chosen.notify && "Notification" in window && Notification.permission === "granted";
  const keep = () => localStorage.setItem(ALERTS_KEY, JSON.stringify({sound: sound.checked, notify: notify.checked}));
  sound.addEventListener("change", () => { keep(); if (sound.checked) audio(); });
  notify.addEventListener("change", async () => {
    if (notify.checked && "Notification" in window && Notification.permission !== "granted") {
      notify.checked = (await Notification.requestPermission()) === "granted";
    }
    keep();
  });
  document.addEventListener("pointerdown", () => { if (alertChoices().sound) audio(); }, {once: true});
});
