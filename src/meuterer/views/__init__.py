"""What one player may know: per-player views, and states sampled from a view.

SPEC section 6 splits a game into what is public, what is private to one player and
what nobody knows. :func:`view` keeps, for one seat (or for a spectator), exactly the
public part and that seat's private part; :func:`sample_state` goes the other way and
fills in everything a view leaves open, at random. See ``docs/views.md``.

The package: ``meuterer.views.player_view`` (the view, its JSON form),
``meuterer.views.sample`` (states drawn from a view), ``meuterer.views.observation``
(text, and the one declared numeric layout), ``meuterer.views.seen_actions`` (what each seat
saw of one action).

>>> import random
>>> import meuterer
>>> from meuterer.views import view, sample_state
>>> actions, _ = meuterer.random_game(seed=7, players=4)
>>> state = meuterer.Game.replay(actions[:40], players=4).state
>>> mine = view(state, 2)
>>> mine.hand == state.hands[2], mine.hand_sizes == tuple(map(sum, state.hands))
(True, True)
>>> others = [seat for seat in range(4) if seat != 2]
>>> hidden = [state.deck] + [state.hands[seat] for seat in others] + [state.face_down[seat] for seat in others]
>>> mine.deck_size == sum(state.deck), mine.unseen == tuple(map(sum, zip(*hidden)))
(True, True)
>>> guess = sample_state(mine, random.Random(1))
>>> view(guess, 2) == mine
True
>>> acting = view(state, state.to_act)
>>> meuterer.legal_actions(acting) == meuterer.legal_actions(state), meuterer.legal_actions(mine)
(True, ())
"""

from meuterer.views.observation import (
    PRIVATE_PIECES,
    STEP_CODES,
    Layout,
    Piece,
    Rounds,
    history_layout,
    observation_bounds,
    observation_layout,
    observation_names,
    observation_text,
    observation_vector,
    private_text,
    update_rounds,
)
from meuterer.views.player_view import (
    HIDDEN_FIELDS,
    PRIVATE_FIELDS,
    PUBLIC_FIELDS,
    ROLES_SECRET,
    PlayerView,
    Slot,
    ViewError,
    complete_state,
    dumps_view,
    unstructure_view,
    view,
)
from meuterer.views.sample import check_view, loads_view, sample_state
from meuterer.views.seen_actions import HiddenDraw, HiddenRole, Seen, SeenAction, seen, seen_by_all

__all__ = [
    "HIDDEN_FIELDS",
    "PRIVATE_FIELDS",
    "PRIVATE_PIECES",
    "PUBLIC_FIELDS",
    "ROLES_SECRET",
    "STEP_CODES",
    "HiddenDraw",
    "HiddenRole",
    "Layout",
    "Piece",
    "PlayerView",
    "Rounds",
    "Seen",
    "SeenAction",
    "Slot",
    "ViewError",
    "check_view",
    "complete_state",
    "dumps_view",
    "history_layout",
    "loads_view",
    "observation_bounds",
    "observation_layout",
    "observation_names",
    "observation_text",
    "observation_vector",
    "private_text",
    "sample_state",
    "seen",
    "seen_by_all",
    "unstructure_view",
    "update_rounds",
    "view",
]
