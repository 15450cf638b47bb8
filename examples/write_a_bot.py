"""Write your own bot: an agent sees only its view and the legal actions.

This one plays cards it can sell on an active island and passes otherwise, prefers the
mate's role (paid whenever the captain keeps the ship) and never takes the mutineer,
sells as much as it can, spends every support in a mutiny, and takes the first legal
option for everything else. It then plays three random bots, and, registered under the
name ``trader``, a small tournament against them.

    python examples/write_a_bot.py
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import meuterer
from meuterer.agents import RandomAgent, play_game, register_agent
from meuterer.tournament import run_tournament
from meuterer.views import PlayerView


class Trader:
    """Plays sellable goods, passes with the rest, prefers the mate, never mutinies."""

    name = "trader"

    def act(self, view: PlayerView, legal: Sequence[meuterer.Action], rng: random.Random) -> meuterer.Action:
        islands = [view.island(p) for p in view.active]
        for action in legal:
            if isinstance(action, meuterer.Play) and any(i.buys_card(action.card) for i in islands):
                return action
        roles = {a.role: a for a in legal if isinstance(a, meuterer.ChooseRole)}
        for role in (meuterer.Role.MATE, meuterer.Role.MERCHANT, meuterer.Role.LOADMASTER, meuterer.Role.CABIN_BOY):
            if role in roles:
                return roles[role]
        sales = [a for a in legal if isinstance(a, meuterer.Sell)]
        if sales:
            return max(sales, key=lambda a: sum(s.count for s in a.sales))
        supports = [a for a in legal if isinstance(a, meuterer.Support)]
        if supports:
            return supports[-1]  # every support card it has
        passes = [a for a in legal if isinstance(a, meuterer.Pass)]
        return passes[0] if passes else legal[0]


def main(games: int = 200) -> None:
    wins = 0.0
    for seed in range(games):
        _, final = play_game([Trader(), RandomAgent(), RandomAgent(), RandomAgent()], seed=seed, first_captain=seed % 4)
        winners = meuterer.winners(final)
        wins += 1 / len(winners) if 0 in winners else 0
    print(f"the trader won {wins:.1f} of {games} games against three random bots")
    register_agent("trader", Trader)  # now "trader" is an agent spec like "greedy"
    run = run_tournament(["trader", "greedy", "random"], games=12, seed=1)
    for group in run.summary().agents:
        print(f"{group.label:>7}: {group.wins}")


if __name__ == "__main__":
    main()
