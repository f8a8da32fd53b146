"""What the match-file formats share (docs/records.md sections 3 and 6): the note of a
game's opening (the ties and the opening throw, which neither .mat nor .sgf has a place
for), the opening a first move implies, and what a resignation resigned.
"""
import functools
import re

from fastbg.constants import START
from fastbg.position.ids import position_id
from fastbg.sim.records import Action

_NOTE = re.compile(r"^ties ([1-6 ]*); throw ([01]) ([1-6])-([1-6])$")


@functools.lru_cache(maxsize=None)
def start_id():
    """The starting position's Position ID (computed on first use: not at import, where
    it would load the ID kernels)."""
    return position_id(START)


def implied_opening(first):
    """The opening throw that a first move of a non-double implies: the higher die
    started, the mover threw it."""
    return Action(first.player, "opening", (max(first.dice), min(first.dice)), None,
                  start_id(), None)


def opening_note(g, where):
    """``"ties 3 5; throw 0 5-3"``: the opening ties and throw of :class:`GameRecord`
    ``g`` when they are not what its first move implies, else None. A game that does not
    start from the starting position (no opening throw) raises a ValueError naming
    ``where``: the formats hold only games from the start."""
    if g.actions and g.actions[0].position_id != start_id():
        raise ValueError(f"{where}: a game from a given position (not the start) cannot "
                         "be written in a match file")
    ties = [a.dice[0] for a in g.actions if a.kind == "opening_tie"]
    opening = [a for a in g.actions if a.kind == "opening"]
    first = next((a for a in g.actions if a.kind == "move"), None)
    implied = (first is not None and first.dice[0] != first.dice[1]
               and opening == [implied_opening(first)])
    if not ties and implied:
        return None
    if not opening:
        raise ValueError(f"{where}: a game without its opening throw (from a given "
                         "position) cannot be written in a match file")
    o = opening[0]
    return f"ties {' '.join(map(str, ties))}; throw {o.player} {o.dice[0]}-{o.dice[1]}"


def parse_opening_note(text):
    """(ties, first player, (die of the first player, the other's)) of an
    :func:`opening_note`, or None when ``text`` is not one."""
    m = _NOTE.match(text.strip())
    if not m:
        return None
    return ([int(x) for x in m.group(1).split()], int(m.group(2)),
            (int(m.group(3)), int(m.group(4))))


def start_game(builder, note, where):
    """Give a :class:`GameBuilder` the opening of ``note`` (parsed), if any."""
    if note is not None:
        ties, first, dice = note
        for die in ties:
            builder.opening_tie(die, f"{where}, opening")
        builder.opening(first, dice)


def resigned_kind(points, stake):
    """What a resignation worth ``points`` at ``stake`` resigned: 1 single, 2 gammon, 3
    backgammon (GNU Backgammon's files give only the points)."""
    return 1 if points <= stake else 2 if points <= 2 * stake else 3
