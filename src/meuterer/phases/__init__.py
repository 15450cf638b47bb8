"""The rules themselves: pure guards, effects and legal-action generators, one module per
group of phases. Each function is reached from exactly one place: :mod:`meuterer.machine`.

Guards are ``(state, action) -> bool``; effects are ``(state, action) -> changes``, a
dict of the state fields they replace (the engine adds the machine's destination step and
builds the new snapshot); legal-action generators are ``(state) -> tuple of actions``.
"""
