"""A griffe extension for the API pages, applied at docs build time only (the sources keep
their docstrings as they are):

- doctest examples in docstrings are fenced as Python code, so Markdown does not read
  ``>>>`` as nested quotes;
- Sphinx cross-reference roles (``:func:`current_player```, ``:class:`~meuterer.errors.SetupError```)
  become links: each target is resolved like Sphinx does (the object's own scope and its
  parents', then the absolute path, then a unique name in the package) to its canonical
  path, and written as an autorefs reference. A target outside the package stays code;
- "SPEC section N", which cites the project's specification that readers of the site do
  not have, becomes a link to the same part of the rules page.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(func|meth|class|exc|attr|data|const|obj|mod):`(~?)([A-Za-z_][\w.]*)(\(\))?`")
"""A Sphinx cross-reference role: kind, ``~`` (show the last name only), target, ``()``."""

CALLABLE_ROLES = frozenset({"func", "meth"})

SPEC_SECTIONS = {
    "1": ("the islands", "the-islands"),
    "2": ("setup", "setup"),
    "3": ("a round in ten phases", "a-round-in-ten-phases"),
    "4": ("end of the game", "end-of-the-game"),
    "5": ("the pirate variant", "the-pirate-variant"),
    "6": ("what is hidden", "what-is-hidden"),
}
"""The sections of the specification, as headings of ``docs/rules.md`` (title, anchor)."""
SPEC = re.compile(r"SPEC section (\d+)")


def link_spec(text: str) -> str:
    """``text`` with each "SPEC section N" turned into a link to that part of the rules page.

    >>> print(link_spec("Public (SPEC section 6): the captain."))
    Public ([the rules: what is hidden][what-is-hidden]): the captain.
    """

    def replace(match: re.Match[str]) -> str:
        section = SPEC_SECTIONS.get(match.group(1))
        return match.group(0) if section is None else f"[the rules: {section[0]}][{section[1]}]"

    return SPEC.sub(replace, text)


def fence_doctests(text: str) -> str:
    """Wrap each run of doctest lines (a ``>>>`` line and what follows up to a blank line) in a fence."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith(">>>"):
            indent = line[: len(line) - len(line.lstrip())]
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i])
                i += 1
            out += [f"{indent}```pycon", *(indent + b for b in block), f"{indent}```"]
            continue
        out.append(line)
        i += 1
    return "\n".join(out)


def _canonical(obj: Any) -> str:
    if obj.is_alias:
        try:
            return str(obj.final_target.path)
        except Exception:  # an alias griffe cannot follow keeps its written target
            return str(obj.target_path)
    return str(obj.path)


def _member(scope: Any, dotted: str) -> Any | None:
    try:
        return scope[dotted]
    except Exception:  # KeyError, or an alias that cannot be resolved
        return None


def _walk(obj: Any) -> Iterator[Any]:
    yield obj
    for member in obj.members.values():
        if not member.is_alias and (member.is_module or member.is_class):
            yield from _walk(member)
        elif not member.is_alias:
            yield member


def _index(pkg: Any) -> dict[str, list[str]]:
    names: dict[str, list[str]] = defaultdict(list)
    for obj in _walk(pkg):
        names[obj.name].append(obj.path)
    return names


def resolve(pkg: Any, obj: Any, target: str, names: dict[str, list[str]]) -> str | None:
    """The canonical path of ``target`` as written in ``obj``'s docstring, or ``None``."""
    scope = obj
    while scope is not None:
        found = _member(scope, target)
        if found is not None:
            return _canonical(found)
        scope = scope.parent
    if target == pkg.path:
        return str(pkg.path)
    if target.startswith(pkg.path + "."):
        found = _member(pkg, target[len(pkg.path) + 1 :])
        if found is not None:
            return _canonical(found)
    head, _, rest = target.partition(".")
    candidates = names.get(head, [])
    if len(candidates) == 1:
        path = candidates[0] + ("." + rest if rest else "")
        found = _member(pkg, path[len(pkg.path) + 1 :]) if path != pkg.path else pkg
        if found is not None:
            return _canonical(found)
    return None


def link_roles(text: str, resolver: Any) -> str:
    """``text`` with every Sphinx role replaced by an autorefs link (or code, if unresolved).

    ``resolver(target)`` gives the canonical path of a target, or ``None``.

    >>> known = {"meuterer.engine.apply": "meuterer.engine.apply"}
    >>> print(link_roles("See :func:`~meuterer.engine.apply` and :class:`Gone`.", known.get))
    See <autoref identifier="meuterer.engine.apply" optional><code>apply()</code></autoref> and <code>Gone</code>.
    """

    def replace(match: re.Match[str]) -> str:
        kind, short, target, call = match.groups()
        shown = target.rsplit(".", 1)[-1] if short else target
        if kind in CALLABLE_ROLES or call:
            shown += "()"
        path = resolver(target)
        if path is None:
            return f"<code>{shown}</code>"
        return f'<autoref identifier="{path}" optional><code>{shown}</code></autoref>'

    return ROLE.sub(replace, text)


class FenceDoctests(griffe.Extension):
    """Fence the doctest examples of every docstring and turn its Sphinx roles into links."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence_doctests(obj.docstring.value)

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        names = _index(pkg)
        for obj in _walk(pkg):
            docstring = obj.docstring
            if docstring is not None:
                text = link_roles(docstring.value, lambda target, obj=obj: resolve(pkg, obj, target, names))
                docstring.value = link_spec(text)
