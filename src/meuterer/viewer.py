"""The replay viewer: one self-contained HTML page that steps through a game record.

:func:`replay_html` turns a :class:`~meuterer.record.Record` or a
:class:`~meuterer.redact.RedactedRecord` (or the JSON text or path of either) into a
single HTML file with no network access, no external script and no external font: the
SVG board (:func:`meuterer.svg.board`) after every action, the action list with the
current one highlighted, first/previous/next/last buttons, the arrow keys, a slider, a
jump to any round, the scores so far and, for a full record, :func:`~meuterer.record.verify`'s
verdict. A redacted record, or a full one with ``perspective=seat``, is shown from that
player's side only: his views, with the others' draws and roles as ``?``.

The boards are stored gzip-compressed (a 250-action game's 3.6 MB of SVG take ~60 kB)
and unpacked by the browser's ``DecompressionStream``; ``#step=K`` in the address opens
the page at step ``K``. A page holds at most :data:`MAX_PICTURES` boards, so that a
record of any length is shown within the readers' budget (2 s, 512 MB): a longer game
(games last a few hundred actions; a record may hold 10,000) gets a board every few steps,
and a step between two shows the board before it, saying so.

>>> import meuterer
>>> from meuterer.record import make_record
>>> from meuterer.viewer import replay_html
>>> actions, _ = meuterer.random_game(seed=2, players=3)
>>> record = make_record(meuterer.Game.replay(actions, players=3), names=("Ann", "Bob", "Cy"))
>>> page = replay_html(record)
>>> page.startswith("<!DOCTYPE html>"), "valid:" in page, "src=" in page, "http" in page
(True, True, False, False)
"""

from __future__ import annotations

import base64
import gzip
import html
import io
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, Any, Final

from meuterer import engine
from meuterer.errors import FormatError, MeutererError
from meuterer.game import Game
from meuterer.record import (
    Record,
    display,
    make_record,
    parse_source,
    record_from_data,
    verify,
    write_text_atomic,
)
from meuterer.redact import FORMAT_NAME as REDACTED_FORMAT
from meuterer.redact import RedactedRecord, redact, redacted_from_data, replay_views
from meuterer.state import State
from meuterer.svg import SIZE, board
from meuterer.views import PlayerView

__all__ = ["read_any_record", "replay_html", "write_html"]

Source = Game | Record | RedactedRecord | str | bytes | os.PathLike[str] | IO[str]
"""What the viewer opens: a game, a record, a redacted record, or the JSON text, path or stream of one."""


def read_any_record(source: str | bytes | os.PathLike[str] | IO[str]) -> Record | RedactedRecord:
    """A record or a redacted record, whichever the JSON document of ``source`` is.

    Raises :class:`~meuterer.errors.FormatError` naming the path of the first problem.
    """
    data = parse_source(source)
    fmt = data.get("format") if isinstance(data, dict) else None
    if isinstance(fmt, dict) and fmt.get("name") == REDACTED_FORMAT:
        return redacted_from_data(data)
    return record_from_data(data)


def _seat(seat: int | None, names: Sequence[str]) -> str:
    if seat is None:
        return "a spectator"
    name = display(names[seat])
    return f"p{seat}" if name == f"p{seat}" else f"p{seat} ({name})"


def _label(seat: int, name: str) -> str:
    """A seat's column heading: ``p1 Bob``, or ``p1`` for a seat that has only its number as a
    name (a record made without names).

    >>> _label(1, "Bob"), _label(1, "p1"), _label(1, "p2")
    ('p1 Bob', 'p1', 'p1 p2')
    """
    return f"p{seat}" if name == f"p{seat}" else f"p{seat} {name}"


def _frames(
    record: Record | RedactedRecord, perspective: int | None
) -> tuple[list[State | PlayerView], list[str], dict[str, Any]]:
    """The pictures' subjects (one more than the actions shown), the actions' text and the verdict."""
    names = record.players
    if isinstance(record, Record):
        report = verify(record)
        verdict = {"ok": report.ok, "text": str(report)}
        if perspective is None:
            states = [engine.new_game(len(names), record.first_captain, record.rules)]
            for action in record.actions[: report.steps]:
                states.append(engine.apply(states[-1], action))
            return list(states), [str(a) for a in record.actions], verdict
        if not report.ok:
            raise MeutererError(f"cannot show an invalid record from one player's side: {report}")
        redacted = redact(record, perspective)
        verdict["text"] = f"{report}; shown as {_seat(perspective, names)} saw it"
    else:
        if perspective is not None and perspective != record.viewer:
            raise MeutererError(f"a record redacted for {record.viewer} cannot be shown as seat {perspective} saw it")
        redacted = record
        verdict = {
            "ok": None,
            "text": f"a redacted record: the game as {_seat(record.viewer, names)} saw it "
            "(others' draws and roles are '?'); it holds no digests, so it cannot be verified",
        }
    views: list[State | PlayerView] = list(replay_views(redacted))
    return views, [str(seen) for seen in redacted.actions], verdict


MAX_PICTURES: Final = 400
"""The most boards a replay page holds (one per step up to this many steps)."""


def _gzip_b64(items: Iterable[object]) -> str:
    """The JSON array of ``items``, gzip-compressed and in base64; the items are made and
    compressed one at a time (never all of them in memory at once)."""
    packed = io.BytesIO()
    with gzip.GzipFile(fileobj=packed, mode="wb", compresslevel=9, mtime=0) as stream:
        stream.write(b"[")
        for index, item in enumerate(items):
            text = json.dumps(item, separators=(",", ":"), ensure_ascii=False)
            stream.write(("," if index else "").encode("utf-8") + text.encode("utf-8"))
        stream.write(b"]")
    return base64.b64encode(packed.getvalue()).decode("ascii")


def _script_json(data: object) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=True).replace("</", "<\\/")


def replay_html(source: Source, *, perspective: int | None = None, title: str | None = None, size: int = SIZE) -> str:
    """One self-contained HTML page stepping through the game of ``source``.

    ``source`` is a :class:`~meuterer.game.Game` (its history up to the cursor), a
    :class:`~meuterer.record.Record` (verified; its verdict is shown), a
    :class:`~meuterer.redact.RedactedRecord` (shown from its viewer's side), or the JSON
    text, path or stream of either. ``perspective=seat`` shows a full record as that
    seat saw it (it is redacted first, so the action list hides what he could not see).
    An invalid record is shown up to its first illegal action. ``size`` is the board's
    width in pixels. Raises :class:`~meuterer.errors.FormatError` for a document that is
    not a record and :class:`~meuterer.errors.MeutererError` for a bad ``perspective``.
    """
    if isinstance(source, Game):
        record: Record | RedactedRecord = make_record(source)
    elif isinstance(source, Record | RedactedRecord):
        record = source
    else:
        record = read_any_record(source)
    names = tuple(display(name) for name in record.players)  # no control or bidi character on the page
    if perspective is not None and (type(perspective) is not int or not 0 <= perspective < len(names)):
        raise MeutererError(f"perspective is a seat from 0 to {len(names) - 1}, got {perspective!r}")
    subjects, actions, verdict = _frames(record, perspective)
    stride = -(-len(subjects) // MAX_PICTURES)  # a board every ``stride`` steps
    boards = (board(subject, size=size, names=names) for subject in subjects[::stride])
    steps = [{"round": s.round, "scores": list(s.scores), "over": s.step.value == "game_over"} for s in subjects]
    rounds: dict[int, int] = {}
    for index, subject in enumerate(subjects):
        rounds.setdefault(subject.round, index)
    viewer = record.viewer if isinstance(record, RedactedRecord) else perspective
    side = "the whole table" if isinstance(record, Record) and perspective is None else _seat(viewer, names)
    heading = title or f"Meuterer: {', '.join(names)}"
    meta = {
        "names": list(names),
        "labels": [_label(seat, name) for seat, name in enumerate(names)],
        "steps": steps,
        "rounds": sorted(rounds.items()),
        "replayed": len(subjects) - 1,
        "actions": len(actions),
        "stride": stride,
    }
    items = "\n".join(
        f'<li id="a{k + 1}" data-step="{k + 1}"{"" if k < len(subjects) - 1 else " class=unplayed"}>'
        f"<span class=n>{k + 1}</span> {html.escape(text)}</li>"
        for k, text in enumerate(actions)
    )
    options = "\n".join(f'<option value="{start}">round {r}</option>' for r, start in sorted(rounds.items()))
    verdict_class = {True: "ok", False: "bad", None: "info"}[verdict["ok"]]
    return _PAGE.format(
        title=html.escape(heading),
        side=html.escape(side),
        verdict=html.escape(verdict["text"]),
        verdict_class=verdict_class,
        items=items,
        options=options,
        last=len(subjects) - 1,
        width=size,
        meta=_script_json(meta),
        boards=_gzip_b64(boards),
        script=_SCRIPT,
        style=_STYLE,
    )


def write_html(
    source: Source,
    out: str | os.PathLike[str],
    *,
    perspective: int | None = None,
    title: str | None = None,
    size: int = SIZE,
) -> Path:
    """Write :func:`replay_html` of ``source`` to the file ``out``; returns its path."""
    page = replay_html(source, perspective=perspective, title=title, size=size)
    path = Path(out)
    try:
        write_text_atomic(path, page)  # the old page or the whole new one, never a part
    except OSError as error:
        raise FormatError("$", f"cannot write {os.fspath(out)!r}: {error.strerror}") from None
    return path


_STYLE: Final = """
body{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;margin:12px;color:#111;background:#fafafa}
h1{font-size:18px;margin:0 0 4px}
#verdict{margin:0 0 8px;padding:4px 8px;border-left:5px solid #999;background:#fff}
#verdict.ok{border-color:#0072B2}#verdict.bad{border-color:#D55E00;font-weight:bold}
#layout{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}
#board{background:#fff;border:1px solid #ccc;line-height:0}
#board svg{max-width:100%;height:auto}
aside{flex:1 1 300px;min-width:280px;max-width:480px}
#controls{display:flex;flex-wrap:wrap;gap:4px;align-items:center;margin-bottom:6px}
#controls button{font-size:15px;min-width:38px;padding:3px 6px}
#slider{width:100%}
#now{font-weight:bold;margin:4px 0;min-height:1.3em}
table{border-collapse:collapse;margin:6px 0;font-size:13px}
td,th{border:1px solid #bbb;padding:2px 6px;text-align:right}
#actions{height:300px;overflow-y:auto;margin:0;padding:0;list-style:none;border:1px solid #ccc;
 background:#fff;font-family:'DejaVu Sans Mono',monospace;font-size:13px}
#actions li{padding:1px 6px;cursor:pointer}
#actions li .n{display:inline-block;width:3.2em;color:#666}
#actions li.current{background:#0072B2;color:#fff}#actions li.current .n{color:#fff}
#actions li.unplayed{color:#D55E00;text-decoration:line-through}
#help{font-size:12px;color:#555}
"""

_SCRIPT: Final = r"""
(function () {
  const meta = JSON.parse(document.getElementById('meta').textContent);
  const last = meta.replayed;
  const board = document.getElementById('board');
  const slider = document.getElementById('slider');
  const position = document.getElementById('position');
  const now = document.getElementById('now');
  const roundSelect = document.getElementById('round');
  const scores = document.getElementById('scores');
  const list = document.getElementById('actions');
  let boards = null;
  let step = 0;

  function escape(text) {
    const replace = {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'};
    return text.replace(/[&<>"]/g, c => replace[c]);
  }

  function cells(values) {
    return values.map(v => '<td>' + v + '</td>').join('');
  }

  function scoreTable() {
    let rows = '<tr><th></th>' + meta.labels.map(label => '<th>' + escape(label) + '</th>').join('') + '</tr>';
    for (const [r, start] of meta.rounds) {
      if (start > step || r === meta.steps[step].round) continue;
      const next = meta.rounds.find(([q]) => q === r + 1);
      const end = next ? next[1] - 1 : last;
      rows += '<tr><th>after round ' + r + '</th>' + cells(meta.steps[end].scores) + '</tr>';
    }
    const label = meta.steps[step].over ? 'final' : 'now';
    rows += '<tr class="now"><th>' + label + '</th>' + cells(meta.steps[step].scores) + '</tr>';
    scores.innerHTML = rows;
  }

  function show(k) {
    step = Math.max(0, Math.min(last, k));
    const stride = meta.stride || 1;
    if (boards) board.innerHTML = boards[Math.floor(step / stride)];

    slider.value = step;
    position.textContent = 'action ' + step + ' of ' + last;  // actions numbered from 1, as in the list
    const old = list.querySelector('li.current');
    if (old) old.classList.remove('current');
    const item = document.getElementById('a' + step);
    if (item) {
      item.classList.add('current');
      const top = item.offsetTop - list.offsetTop;
      if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - item.offsetHeight) {
        list.scrollTop = top - list.clientHeight / 2;
      }
      now.textContent = item.textContent.replace(/^\s*\d+\s*/, '');
    } else {
      now.textContent = 'the start of the game';
    }
    if (step % stride) {
      now.textContent += ' (board shown: after action ' + (step - step % stride) +
        '; this long game has a board every ' + stride + ' steps)';
    }
    const round = meta.steps[step].round;
    for (const option of roundSelect.options) {
      if (meta.rounds.find(([r, s]) => String(s) === option.value)[0] === round) option.selected = true;
    }
    scoreTable();
    document.body.dataset.step = step;
    if (location.hash !== '#step=' + step) history.replaceState(null, '', '#step=' + step);
  }

  document.getElementById('first').onclick = () => show(0);
  document.getElementById('prev').onclick = () => show(step - 1);
  document.getElementById('next').onclick = () => show(step + 1);
  document.getElementById('last').onclick = () => show(last);
  slider.oninput = () => show(Number(slider.value));
  roundSelect.onchange = () => show(Number(roundSelect.value));
  list.onclick = (event) => {
    const item = event.target.closest('li');
    if (item && !item.classList.contains('unplayed')) show(Number(item.dataset.step));
  };
  document.addEventListener('keydown', (event) => {
    if (event.target === roundSelect) return;
    const keys = {ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: last};
    if (event.key in keys) { event.preventDefault(); show(keys[event.key]); }
  });

  async function unpack() {
    const text = document.getElementById('boards').textContent.trim();
    const bytes = Uint8Array.from(atob(text), c => c.charCodeAt(0));
    if (typeof DecompressionStream === 'undefined') throw new Error('this browser cannot unpack the boards');
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return JSON.parse(await new Response(stream).text());
  }
  function fromAddress() {
    const wanted = /^#step=(\d+)$/.exec(location.hash);
    return wanted ? Number(wanted[1]) : 0;
  }
  window.addEventListener('hashchange', () => show(fromAddress()));
  show(fromAddress());
  unpack().then((unpacked) => {
    boards = unpacked;
    show(step);
    document.body.dataset.ready = 'yes';
  }, (error) => {
    board.textContent = 'The boards cannot be shown: ' + error.message;
    document.body.dataset.ready = 'error';
  });
})();
"""

_PAGE: Final = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{style}</style>
</head>
<body>
<h1>{title}</h1>
<p id="verdict" class="{verdict_class}"><b>Verdict:</b> {verdict}</p>
<p>Seen as: <b id="side">{side}</b></p>
<div id="layout">
<div id="board" style="width:{width}px;max-width:100%">Unpacking the boards…</div>
<aside>
<div id="controls">
<button id="first" title="first (Home)">First</button>
<button id="prev" title="previous (←)">◀ Prev</button>
<button id="next" title="next (→)">Next ▶</button>
<button id="last" title="last (End)">Last</button>
<label>Jump to <select id="round">
{options}
</select></label>
<span id="position"></span>
</div>
<input id="slider" type="range" min="0" max="{last}" value="0" aria-label="step">
<div id="now"></div>
<table id="scores"></table>
<ol id="actions">
{items}
</ol>
<p id="help">Keys: ← → one step, Home/End first/last. Click an action to go there.</p>
</aside>
</div>
<script type="application/json" id="meta">{meta}</script>
<script type="application/octet-stream" id="boards">{boards}</script>
<script>{script}</script>
</body>
</html>
"""
