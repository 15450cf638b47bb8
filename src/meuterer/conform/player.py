"""Playing fixtures on an engine through the protocol: :class:`Player` finds the first
difference from a fixture; :class:`Capabilities` reads the engine's ``hello``."""

from __future__ import annotations

import json
from typing import Any, Final

from meuterer.actions import parse_action
from meuterer.conform.client import Channel, EngineFailure
from meuterer.conform.fixtures import Fixture, fixture_actions, fixture_rules, option_labels
from meuterer.conform.report import Difference
from meuterer.engine import apply, new_game
from meuterer.rules import Rules
from meuterer.views import dumps_view, view

BATCH_BYTES: Final = 16 << 10
"""Requests sent before reading their replies (at most about this many bytes)."""


def _clip(value: object, most: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= most else text[:most] + f"… ({len(text)} chars)"


def _tail(text: str, lines: int = 12) -> str:
    kept = text.strip().splitlines()[-lines:]
    return ("engine stderr (end):\n      " + "\n      ".join(kept)) if kept else ""


class Capabilities:
    """What the engine said it supports in its ``hello``."""

    def __init__(self, hello: dict[str, Any]) -> None:
        caps = hello.get("capabilities") if isinstance(hello.get("capabilities"), dict) else {}
        assert isinstance(caps, dict)
        players = caps.get("players", [3, 4])
        options = caps.get("options", [])
        self.players = {p for p in players if p in (3, 4)} if isinstance(players, list) else {3, 4}
        self.options = {o for o in options if isinstance(o, str)} if isinstance(options, list) else set()
        self.views = caps.get("views") is True
        self.clone = caps.get("clone") is True

    def unsupported(self, players: int, rules: Rules) -> str | None:
        """Why a game with this setup is skipped, or ``None`` if the engine plays it."""
        if players not in self.players:
            return f"{players} players not supported"
        missing = [label[7:] for label in option_labels(players, rules)[1:] if label[7:] not in self.options]
        return f"rule option(s) not supported: {', '.join(missing)}" if missing else None


class Player:
    """Plays fixtures on an engine through the protocol and finds the first difference."""

    def __init__(self, engine: Channel, caps: Capabilities) -> None:
        self.engine = engine
        self.caps = caps

    def _new(self, fixture: Fixture) -> tuple[str | None, str | None]:
        """A new game for ``fixture``: (handle, None), or (None, why skipped)."""
        reply = self.engine.request(
            {
                "cmd": "new",
                "rules": fixture["rules"],
                "players": fixture["players"],
                "first_captain": fixture["first_captain"],
            }
        )
        if reply["status"] == "skipped":
            return None, f"skipped by the engine: {reply.get('reason', '')}"
        if reply["status"] != "ok" or not isinstance(reply.get("game"), str):
            raise EngineFailure("errored", f"new: {_clip(reply)}", self.engine.stderr)
        return reply["game"], None

    def _drop(self, game: str) -> None:
        self.engine.request({"cmd": "drop", "game": game})

    def _stderr(self, reply: dict[str, Any]) -> str:
        """The end of the engine's stderr, for an ``errored`` reply (its own crash)."""
        return _tail(self.engine.stderr) if reply.get("status") == "errored" else ""

    def observations(self, game: str, players: int) -> list[dict[str, Any]]:
        requests: list[dict[str, Any]] = [{"cmd": "legal", "game": game}, {"cmd": "scores", "game": game}]
        if self.caps.views:
            seats: list[int | None] = [None, *range(players)]
            requests += [{"cmd": "view", "game": game, "seat": s, "form": "digest"} for s in seats]
        return requests

    def play(self, fixture: Fixture, pipelined: bool = True) -> Difference | str | None:
        """Play a game fixture: its first difference, a reason it was skipped (a string), or ``None``."""
        game, skipped = self._new(fixture)
        if game is None:
            return skipped
        steps = fixture["steps"]
        players = fixture["players"]
        per_step = len(json.dumps(self.observations(game, players))) + 200
        batch = max(1, BATCH_BYTES // per_step) if pipelined else 1
        for first in range(0, len(steps), batch):
            chunk = steps[first : first + batch]
            requests: list[dict[str, Any]] = []
            for step in chunk:
                requests += self.observations(game, players)
                if "action" in step:
                    requests.append({"cmd": "apply", "game": game, "action": step["action"]})
            replies = self.engine.pipeline(requests) if pipelined else [self.engine.request(r) for r in requests]
            at = 0
            for offset, step in enumerate(chunk):
                count = len(self.observations(game, players))
                found = self._compare(first + offset, step, replies[at : at + count], game, fixture)
                at += count
                if found is not None:
                    return found
                if "action" in step:
                    reply = replies[at]
                    at += 1
                    if reply["status"] != "ok":
                        return Difference(
                            first + offset, f"applying {step['action']}", "ok", _clip(reply), self._stderr(reply)
                        )
        self._drop(game)
        return None

    def _compare(
        self, index: int, step: Fixture, replies: list[dict[str, Any]], game: str, fixture: Fixture
    ) -> Difference | None:
        for reply, what in zip(replies, ("legal", "scores"), strict=False):
            if reply["status"] != "ok":
                return Difference(index, what, "ok", _clip(reply), self._stderr(reply))
        legal, scores = replies[0], replies[1]
        found = compare_legal(index, step, legal)
        if found is not None:
            return found
        if scores.get("scores") != step["scores"]:
            return Difference(index, "scores", _clip(step["scores"]), _clip(scores.get("scores")))
        for seat_index, reply in enumerate(replies[2:]):
            seat = None if seat_index == 0 else seat_index - 1
            who = "the spectator's view" if seat is None else f"p{seat}'s view"
            if reply["status"] != "ok":
                return Difference(index, who, "ok", _clip(reply), self._stderr(reply))
            digest = reply.get("digest")
            expected = step["views"][seat_index]
            if not isinstance(digest, str) or digest[: len(expected)] != expected:
                return Difference(index, who, expected, _clip(digest), self._view_detail(fixture, index, seat))
        return None

    def _view_detail(self, fixture: Fixture, index: int, seat: int | None) -> str:
        """The first key where the engine's view text differs from the reference's."""
        state = new_game(fixture["players"], fixture["first_captain"], fixture_rules(fixture))
        for text in fixture_actions(fixture)[:index]:
            state = apply(state, parse_action(text))
        expected = json.loads(dumps_view(view(state, seat)))
        # The game has gone on (requests are pipelined): replay the position in a new one.
        there, _ = self._new(fixture)
        if there is None:
            return "the view's text could not be asked for"
        prefix = fixture_actions(fixture)[:index]
        self.engine.pipeline([{"cmd": "apply", "game": there, "action": a} for a in prefix])
        reply = self.engine.request({"cmd": "view", "game": there, "seat": seat, "form": "text"})
        self._drop(there)
        try:
            actual = json.loads(reply["text"])
        except (KeyError, TypeError, ValueError):
            return f"the view's text could not be read: {_clip(reply)}"
        if not isinstance(actual, dict):
            return f"the view's text is not an object: {_clip(reply['text'])}"
        for key in sorted(set(expected) | set(actual)):
            want, got = expected.get(key, "(absent)"), actual.get(key, "(absent)")
            if want != got:
                return f"first differing key {key!r}: expected {_clip(want)}, got {_clip(got)}"
        text = reply["text"]
        wanted = dumps_view(view(state, seat))
        return f"same values, other bytes: expected {_clip(wanted)}, got {_clip(text)}"

    def refusal(self, check: Fixture, game_fixture_: Fixture) -> Difference | str | None:
        """Play a refusal fixture: the prefix, then the action that must be refused."""
        game, skipped = self._new(game_fixture_)
        if game is None:
            return skipped
        step = check["step"]
        prefix = fixture_actions(game_fixture_)[:step]
        for first in range(0, len(prefix), 100):
            chunk = prefix[first : first + 100]
            replies = self.engine.pipeline([{"cmd": "apply", "game": game, "action": a} for a in chunk])
            for offset, reply in enumerate(replies):
                if reply["status"] != "ok":
                    what = f"applying {chunk[offset]}"
                    return Difference(first + offset, what, "ok", _clip(reply), self._stderr(reply))
        reply, legal = self.engine.pipeline(
            [{"cmd": "apply", "game": game, "action": check["action"]}, {"cmd": "legal", "game": game}]
        )
        if reply["status"] != "refused" or reply.get("code") != check["code"]:
            got = reply["status"] + (f" with code {reply.get('code')!r}" if reply["status"] == "refused" else "")
            return Difference(step, f"applying {check['action']!r}", f"refused with code {check['code']!r}", got)
        found = compare_legal(step, game_fixture_["steps"][step], legal)
        if found is not None:
            found.what = f"{found.what} after the refusal (the game must be unchanged)"
            return found
        self._drop(game)
        return None

    def clone(self, fixture: Fixture, at: int) -> Difference | None:
        """A clone after ``at`` actions follows its own action; the original is untouched."""
        game, _ = self._new(fixture)
        if game is None:
            return None
        actions = fixture_actions(fixture)
        replies = self.engine.pipeline([{"cmd": "apply", "game": game, "action": a} for a in actions[:at]])
        if any(r["status"] != "ok" for r in replies):
            return Difference(0, "applying the prefix for the clone check", "ok", "a refusal")
        reply = self.engine.request({"cmd": "clone", "game": game})
        if reply["status"] != "ok" or not isinstance(reply.get("game"), str):
            return Difference(at, "clone", "a new game handle", _clip(reply))
        twin = reply["game"]
        replies = self.engine.pipeline(
            [
                {"cmd": "apply", "game": twin, "action": actions[at]},
                {"cmd": "legal", "game": twin},
                {"cmd": "legal", "game": game},
            ]
        )
        if replies[0]["status"] != "ok":
            return Difference(at, f"applying {actions[at]} to the clone", "ok", _clip(replies[0]))
        found = compare_legal(at + 1, fixture["steps"][at + 1], replies[1]) or compare_legal(
            at, fixture["steps"][at], replies[2]
        )
        if found is not None:
            found.what = f"{found.what} (clone check)"
            return found
        self._drop(twin)
        self._drop(game)
        return None


def compare_legal(index: int, step: Fixture, reply: dict[str, Any]) -> Difference | None:
    """The difference between a ``legal`` reply and a fixture step, or ``None``."""
    if reply.get("status") != "ok":
        return Difference(index, "legal", "ok", _clip(reply))
    if reply.get("actor") != step["actor"] or type(reply.get("actor")) is not type(step["actor"]):
        return Difference(index, "who acts", _clip(step["actor"]), _clip(reply.get("actor")))
    actions = reply.get("actions")
    if step["legal"] is None:
        if actions is not None or reply.get("ring") != step["ring"]:
            return Difference(index, "the ring's arrangement", _clip(step["ring"]), _clip(reply.get("ring")))
        return None
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        return Difference(index, "legal actions", "a list of strings", _clip(actions))
    if len(set(actions)) != len(actions):
        return Difference(index, "legal actions", "no duplicates", _clip(sorted(actions)))
    expected = step["legal"]
    if sorted(actions) != expected:
        missing = sorted(set(expected) - set(actions))
        extra = sorted(set(actions) - set(expected))
        return Difference(index, "legal actions", f"missing {_clip(missing)}", f"extra {_clip(extra)}")
    if "probabilities" in step:
        got = reply.get("probabilities")
        if not isinstance(got, list) or len(got) != len(actions):
            return Difference(index, "probabilities", "one per action", _clip(got))
        mine = dict(zip(actions, got, strict=True))
        for action, p in zip(expected, step["probabilities"], strict=True):
            if mine[action] != p:
                return Difference(index, f"probability of {action}", p, _clip(mine[action]))
    return None
