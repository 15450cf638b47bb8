"""Old import path of :mod:`meuterer.cli.play` (kept working)."""

from meuterer.cli.play import BOTS, DEFAULT_BOT, BotError, make_bot, make_bots, play, register, run

__all__ = ["BOTS", "DEFAULT_BOT", "BotError", "make_bot", "make_bots", "play", "register", "run"]
