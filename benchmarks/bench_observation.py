"""The fast observation writer's time per call, today's against the writer as it was before
this pass (frozen below as a private copy, kept for timing only, never run by the library).

Plays seeded random games on the fast engine and, at every step, calls both writers on the
live game (as the envs do: the game just changed, so it is in the cache), in turn, timing
each call: for the seat to act (what the Gym and PettingZoo envs ask for), for every seat
and the spectator, and ending in an int64 numpy array (the list through
``ScalarEncoder.vector``). The last two rows compare the list packed into an array (int64,
or encoded as float32) with what the adapters do since: ``write_values`` packing the
entries straight into the array (``ScalarEncoder.vector_from_game`` and ``from_game``).
Prints microseconds per call (medians of the repeats, less the timer's own cost, measured
as a writer that does nothing) and the ratios. Since issue 22's eighth pass the library has
one writer, ``write_values``; ``observation_vector`` reads its buffer back as a list (for
tests and callers who want a list), so the first three rows now show that reading's cost
(slower than the frozen list writer; no environment takes that path).

    PYTHONPATH=src python benchmarks/bench_observation.py [--games N] [--repeats N] [--players N]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from operator import add, sub
from statistics import median

from meuterer.cards import CARDS, ROLES, Role
from meuterer.fast import FastGame
from meuterer.fast.observation import observation_vector
from meuterer.gym import ScalarEncoder
from meuterer.islands import Island
from meuterer.machine import ROLES_SECRET, STEP_CODES
from meuterer.phases.offer_cargo import roles_seen
from meuterer.rules import Rules
from meuterer.state import Step
from meuterer.views import observation_layout

# The writer before this pass (src/meuterer/fast/observation.py at commit f9e5531), frozen
# here for the "before" row: a copy of old code kept for timing only.
_NONE = -1
_STEP_LIST = tuple(Step)
"""The fast engine numbers steps in :class:`Step`'s order."""
_CODE = tuple(STEP_CODES[step] for step in _STEP_LIST)
_SECRET = tuple(step in ROLES_SECRET for step in _STEP_LIST)
_GAME_OVER = _STEP_LIST.index(Step.GAME_OVER)
_CHOOSE_ROLE = _STEP_LIST.index(Step.CHOOSE_ROLE)
_EMPTY = [0] * len(CARDS)
_UNKNOWN_ROLES = [_NONE] * len(ROLES)
_NO_SALE = [_NONE, _NONE, 0]
_UNDECLARED = [0, *_NO_SALE, *_NO_SALE]
_SALES = 2
_ROLE_CODE = {role: int(role) for role in ROLES}


_Roles = tuple[list[int], int, tuple[int, ...], tuple[int, ...]]
_SEEN: dict[tuple[int | None, tuple[int, ...], tuple[Role | None, ...], bool, bool], _Roles] = {}
"""The layout's role entries, memoised on everything they read: ``player``'s roles-seen
entries and own role code, and each seat's role code (as ``player`` sees it) and place in
the role order."""
_SEEN_LIMIT = 4096


def _roles(game: FastGame, player: int | None, secret: bool) -> _Roles:
    # The rules are phases.offer_cargo.roles_seen and machine.ROLES_SECRET; here as the
    # layout's entries (memoised).
    order, roles = tuple(game.role_order), tuple(game.roles)
    key = (player, order, roles, secret, game.step == _CHOOSE_ROLE and game.to_act == player)
    found = _SEEN.get(key)
    if found is None:
        shown = [r if not secret or s == player else None for s, r in enumerate(roles)]
        codes = tuple(_NONE if r is None else _ROLE_CODE[r] for r in shown)
        places = tuple(order.index(seat) if seat in order else _NONE for seat in range(len(roles)))
        if player is None:
            found = (_UNKNOWN_ROLES, _NONE, codes, places)
        else:
            left = roles_seen(player, order, roles, key[4])
            seen = _UNKNOWN_ROLES if left is None else [int(role in left) for role in ROLES]
            found = (seen, codes[player], codes, places)
        if len(_SEEN) >= _SEEN_LIMIT:
            _SEEN.clear()
        _SEEN[key] = found
    return found


def _before_observation_vector(game: FastGame, player: int | None) -> list[int]:
    """``observation_layout(game.players, game.rules).vector(view(game.to_state(), player))``
    as a list, for a seat or ``None`` (a spectator), read straight off the game."""
    step = game.step
    drawn = game.drawn
    drawn_count = sum(drawn)
    ring = game.ring
    seen, role, codes, places = _roles(game, player, _SECRET[step])
    if player is None:
        hand = down = mine = _EMPTY
    else:
        hand = game.hands[player]
        down = game.face_down[player]
        mine = drawn if drawn_count and game.to_act == player else _EMPTY
    face_up = game.face_up
    # The cards this player cannot see: the deck less the discards, his hand and face-down
    # cards and everyone's face-up cards (one comprehension for 3 or 4 seats: the fastest).
    if len(face_up) == 4:
        u0, u1, u2, u3 = face_up
        unseen = [
            n - a - b - c - d - e - f - g
            for n, a, b, c, d, e, f, g in zip(game.rules.deck, game.discard, hand, down, u0, u1, u2, u3, strict=True)
        ]
    elif len(face_up) == 3:
        u0, u1, u2 = face_up
        unseen = [
            n - a - b - c - d - e - f
            for n, a, b, c, d, e, f in zip(game.rules.deck, game.discard, hand, down, u0, u1, u2, strict=True)
        ]
    else:  # pragma: no cover - the rules seat 3 or 4 players
        up = map(sum, zip(*face_up, strict=True))
        unseen = list(map(sub, game.rules.deck, map(add, game.discard, map(add, hand, map(add, down, up)))))
    mutiny = game.mutiny
    flags = [0] * len(ring)
    for pos in game.active:
        flags[pos] = 1
    offer, pirate = game.offer, game.pirate
    captain_to, mutineer_to = game.captain_destination, game.mutineer_destination
    out = [
        game.players,
        _NONE if player is None else player,
        game.round,
        _CODE[step],
        game.captain,
        _NONE if step == _GAME_OVER else game.to_act,
        _NONE if offer is None else offer,
        game.start,
        _NONE if pirate is None else pirate,
        _NONE if captain_to is None else captain_to,
        _NONE if mutineer_to is None else mutineer_to,
        _NONE if mutiny is None else int(mutiny),
        game.draws_left,
        drawn_count,
        sum(game.deck),
        *ring,
        *flags,
        *game.discard,
        *unseen,
        *hand,
        *down,
        *mine,
        role,
        *seen,
    ]
    queue, hands, downs, passed, scores = game.queue, game.hands, game.face_down, game.passed, game.scores
    append, extend = out.append, out.extend
    for seat, sales in enumerate(game.sales):
        out += (
            sum(hands[seat]),
            sum(downs[seat]),
            1 if passed[seat] else 0,
            codes[seat],
            places[seat],
            queue.index(seat) if seat in queue else _NONE,
            scores[seat],
        )
        out += face_up[seat]
        if sales is None:
            out += _UNDECLARED
            continue
        append(1)
        where = _positions(game)
        for k in range(_SALES):
            if k < len(sales):
                sale = sales[k]
                extend((where[sale.island], int(sale.card), sale.count))
            else:
                extend(_NO_SALE)
    return out


_POSITIONS: dict[tuple[int, tuple[int, ...]], tuple[tuple[Island, ...], dict[str, int]]] = {}
"""Each island's ring position by name, per island list (held, so its id stays its own) and ring."""


def _positions(game: FastGame) -> dict[str, int]:
    islands, ring = game.rules.islands, game.ring
    found = _POSITIONS.get((id(islands), ring))
    if found is None or found[0] is not islands:
        where: dict[str, int] = {}
        for pos, index in enumerate(ring):
            where.setdefault(islands[index].name, pos)  # the first position of a name
        if len(_POSITIONS) >= _SEEN_LIMIT:
            _POSITIONS.clear()
        found = _POSITIONS[id(islands), ring] = (islands, where)
    return found[1]


# The bench -------------------------------------------------------------------------------

Writer = Callable[[FastGame, "int | None"], object]


def timed(writers: list[Writer], games: int, players: int, every: bool) -> list[float]:
    """Each writer's nanoseconds over ``games`` seeded random games (default rules), called
    on the live game at every step, for the seat to act or (``every``) every seat and the
    spectator: one call after another, the writers in turn and the first turn rotating, so
    that each finds the game as warm as the others do."""
    clock = time.perf_counter_ns
    totals = [0] * len(writers)
    turn = 0
    for seed in range(games):
        rng = random.Random(seed)
        game = FastGame.new(players, seed % players, Rules())
        while not game.is_terminal():
            for player in (None, *range(players)) if every else (game.to_act,):
                for k in range(len(writers)):
                    i = (k + turn) % len(writers)
                    write = writers[i]
                    start = clock()
                    write(game, player)
                    totals[i] += clock() - start
                turn += 1
            if game.is_chance_node():
                game.apply_chance(rng)
            else:
                game.apply_at(rng.randrange(len(game.legal_actions())))
    return [t / turn / 1000 for t in totals]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    layout = observation_layout(args.players, Rules())
    encoder = ScalarEncoder.of(layout)

    def before_array(game: FastGame, player: int | None) -> object:
        return encoder.vector(_before_observation_vector(game, player))

    def after_array(game: FastGame, player: int | None) -> object:
        return encoder.vector(observation_vector(game, player))

    def nothing(game: FastGame, player: int | None) -> object:
        return None

    # The adapters' path since write_values: packed straight into an array (then reordered,
    # or encoded from the packed order), against the list packed by ScalarEncoder.vector.
    packed_array = encoder.vector_from_game()
    encode_list, encode_packed = encoder.from_list(), encoder.from_game()

    def list_encoding(game: FastGame, player: int | None) -> object:
        return encode_list(observation_vector(game, player))

    rows: dict[str, tuple[list[Writer], bool]] = {
        "list, seat to act": ([_before_observation_vector, observation_vector, nothing], False),
        "list, every seat and None": ([_before_observation_vector, observation_vector, nothing], True),
        "int64 array (ScalarEncoder.vector), seat to act": ([before_array, after_array, nothing], False),
        "int64 array: list+pack -> write_values+take": ([after_array, packed_array, nothing], False),
        "float32 encoding: list+pack -> write_values": ([list_encoding, encode_packed, nothing], False),
    }
    print(
        f"{args.games} games of {args.players} players, {layout.size} entries; "
        f"microseconds per call, medians of {args.repeats} (the timer's own cost taken off)"
    )
    for name, (writers, every) in rows.items():
        runs = [timed(writers, args.games, args.players, every) for _ in range(args.repeats)]
        empty = median(run[2] for run in runs)
        before = median(run[0] for run in runs) - empty
        after = median(run[1] for run in runs) - empty
        print(f"{name:48s} before {before:6.2f}  after {after:6.2f}  x{before / after:4.2f}")


if __name__ == "__main__":
    main()
