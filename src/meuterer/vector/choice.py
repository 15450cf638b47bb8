"""What the batch may do and what it does at random: each decision step's legal ids and a
uniformly random legal choice, chance drawn with its probabilities, and the check of the
ids handed to :meth:`~meuterer.vector.VectorGame.step`, each dispatched to the functions
the phase modules register (:mod:`meuterer.vector.registry`).

>>> from meuterer.vector.choice import DECIDING
>>> from meuterer.vector.arrays import OFFER, SELL
>>> OFFER in DECIDING and SELL in DECIDING
True
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from meuterer.cards import CARDS
from meuterer.errors import IllegalActionError
from meuterer.machine import STEP_CODES
from meuterer.vector import deal, mutiny, offer, scoring, voyage
from meuterer.vector.arrays import DEAL, DRAW, GAME_OVER, RING, BoolArray, FloatArray, Groups, IntArray
from meuterer.vector.registry import CHOOSE, LEGAL, SAMPLERS
from meuterer.vector.streams import GameStreams

PHASES: Final = (deal, offer, mutiny, scoring, voyage)
"""The phase modules, imported for their registrations."""
_LEGAL: Final = tuple((STEP_CODES[step], LEGAL[step]) for step in sorted(LEGAL, key=STEP_CODES.__getitem__))
_CHOICE: Final = {STEP_CODES[step]: CHOOSE[step] for step in sorted(CHOOSE, key=STEP_CODES.__getitem__)}
DECIDING: Final = tuple(_CHOICE)
"""The steps at which a seat decides, in step order."""
_SAMPLERS: Final = tuple((tuple(STEP_CODES[s] for s in steps), sampler) for steps, sampler in SAMPLERS)
_NONE: Final = np.zeros(0, dtype=np.int64)


def mask_rows(g: Any, idx: IntArray, group: Groups) -> BoolArray:
    """(len(idx), num_actions): the rows of :meth:`~meuterer.vector.VectorGame.legal_mask` of the games ``idx``
    (``group``: the grouping of ``step_[idx]``), each decision step's by its registered
    legal ids."""
    mask = np.zeros((len(idx), g.ids.num_actions), dtype=np.bool_)
    for code, legal in _LEGAL:
        sel = group(code)
        if len(sel):
            legal(g, idx[sel], mask, sel)
    return mask


def random_at(
    g: Any, idx: IntArray, u: FloatArray, group: Groups | None = None, out: IntArray | None = None
) -> IntArray:
    """A uniformly random legal decision of each game ``idx`` (ascending, every one at a
    decision), from the uniform ``u[game]`` of each: what :meth:`~meuterer.vector.VectorGame.random_actions` picks
    there with the same ``u``, without the work for the other games. ``group``: the
    grouping of ``step_[idx]`` if known (then ``idx`` may hold games at chance nodes too,
    left alone); ``out``: where to write the choices (a new array if not given)."""
    if out is None:
        out = np.zeros(len(idx), dtype=np.int64)
    if group is None:
        group = Groups(g.step_[idx])
    bounds, order = group.bounds, group.order
    for code in DECIDING:
        start, stop = bounds[code], bounds[code + 1]
        if stop == start:
            continue
        if stop - start == len(idx):  # every game at this step
            out[:] = _CHOICE[code](g, idx, u.take(idx))
        else:
            sel = order[start:stop]
            i = idx[sel]
            out[sel] = _CHOICE[code](g, i, u.take(i))
    return out


def chance_at(
    g: Any,
    idx: IntArray | None,
    s: IntArray,
    rng: np.random.Generator | GameStreams,
    group: Groups | None = None,
    out: IntArray | None = None,
) -> IntArray:
    """A chance outcome of each game ``idx`` (ascending; ``None``: every game), at step
    ``s`` (0 where no chance moves), drawn as :meth:`~meuterer.vector.VectorGame.sample_chance` draws them when the
    games at a chance node are those among ``idx``, from ``rng`` or, given
    :class:`~meuterer.vector.streams.GameStreams`, from each game's own stream (the streams numbered as the
    batch's games); ``group``: the grouping of ``s``, if known;
    ``out``: where to write the outcomes (only where chance moves; a new array of zeros
    if not given)."""
    if out is None:
        out = np.zeros(len(s), dtype=np.int64)
    for codes, sampler in _SAMPLERS:  # each sampler draws for all its steps' games at once
        if group is None:
            k = np.flatnonzero(np.isin(s, codes))
        else:
            found = [group(code) for code in codes if group.size(code)]
            k = found[0] if len(found) == 1 else np.sort(np.concatenate(found)) if found else _NONE
        if len(k):
            games = k if idx is None else idx[k]
            out[k] = sampler(g, games, rng.of(games) if isinstance(rng, GameStreams) else rng)
    return out


def check(g: Any, actions: object, where: BoolArray | None = None) -> IntArray:
    """``actions`` as a (B,) int64 array, checked: raises ``TypeError`` for a non-integer
    array, ``ValueError`` for a wrong shape, and :class:`~meuterer.errors.IllegalActionError`
    naming the games (indices) whose action is not legal there."""
    if not isinstance(actions, np.ndarray):
        raise TypeError(f"actions must be a numpy array of integers, got {type(actions).__name__}")
    if actions.dtype.kind not in "iu":
        raise TypeError(f"actions must be integers, got dtype {actions.dtype}")
    if actions.shape != (g.batch,):
        raise ValueError(f"actions must have shape ({g.batch},), got {actions.shape}")
    a = actions.astype(np.int64)
    bad = np.zeros(g.batch, dtype=np.bool_)
    s = np.where(where, g.step_, GAME_OVER) if where is not None else g.step_
    deciding = ~((s == RING) | (s == DEAL) | (s == DRAW)) & (s != GAME_OVER)
    inside = (a >= 0) & (a < g.ids.num_actions)
    d = np.flatnonzero(deciding & inside)
    bad[deciding & ~inside] = True
    if len(d):
        bad[d] = ~legal_at(g, d, a[d])
    drawing = (s == DEAL) | (s == DRAW)
    inside = (a >= 0) & (a < len(CARDS))
    bad[drawing & ~inside] = True
    c = np.flatnonzero(drawing & inside)
    if len(c):
        bad[c] = g.draw_pool(c)[np.arange(len(c)), a[c]] <= 0
    ring = s == RING
    bad[ring & ((a < 0) | (a >= len(g.arrangements)))] = True
    if bad.any():
        refuse(g, np.flatnonzero(bad), a)
    return a


def refuse(g: Any, games: IntArray, a: IntArray) -> None:
    """Raise the :class:`~meuterer.errors.IllegalActionError` of :func:`check` for the
    games ``games`` (ascending), whose ids in ``a`` are not legal."""
    if len(games):
        shown = ", ".join(map(str, games[:10].tolist())) + (", ..." if len(games) > 10 else "")
        ids = ", ".join(map(str, a[games[:10]].tolist())) + (", ..." if len(games) > 10 else "")
        raise IllegalActionError(
            f"id(s) {ids}", f"not legal in {len(games)} game(s) of the batch: {shown} (nothing was applied)"
        )


def legal_at(g: Any, idx: IntArray, a: IntArray) -> BoolArray:
    """Whether id ``a[k]`` (a decision id, 0 to ``num_actions - 1``) is legal in game
    ``idx[k]`` (at a decision): ``legal_mask()[idx, a]``, building the mask's rows of
    those games only."""
    rows = mask_rows(g, idx, Groups(g.step_[idx]))
    legal: BoolArray = rows[np.arange(len(idx)), a]
    return legal
