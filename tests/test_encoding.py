"""The fixed action ids: their state-free names."""

from __future__ import annotations

from meuterer.encoding import action_ids
from meuterer.rules import Rules


def test_every_id_has_its_own_name() -> None:
    ids = action_ids(Rules())
    names = [ids.template(a) for a in range(ids.num_actions)]
    assert len(set(names)) == ids.num_actions
    assert names[ids.pass_.start] == "pass"


def test_an_empty_discard_is_named_as_the_notation_writes_it() -> None:
    ids = action_ids(Rules(loadmaster_extra=0))
    names = {ids.template(a) for a in ids.discard}
    assert "discard none" in names
    assert "discard " not in names
