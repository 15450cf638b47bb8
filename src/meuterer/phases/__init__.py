"""The rules themselves: pure guards, effects and legal-action generators, one module per
group of phases. Each function is reached from exactly one place: :mod:`meuterer.machine`.
A variant's rules (the pirates', :mod:`meuterer.phases.pirates`) are reached through the
hooks of :mod:`meuterer.phases.variants`.

Guards are ``(state, action) -> bool``; effects are ``(state, action) -> changes``, a
dict of the state fields they replace (the engine adds the machine's destination step and
builds the new snapshot); legal-action generators are ``(state) -> tuple of actions``.
"""
