"""Board pictures: :func:`show` gives a :class:`BoardDiagram`, drawn as SVG in a notebook
and as :func:`fastbg.render`'s text in a terminal.

The picture has the layout of :func:`fastbg.render` (GNU Backgammon's): the mover, X, on
roll, moves from the top row (points 13..24, left to right) round to the bottom row
(points 12..1) and bears off on the right, below the middle; the opponent, O, bears off
above it. Points carry the mover's numbers. A stack of more than five checkers shows five
with its count on the fifth; the bar stacks from the middle outwards (X's on the top
half, next to where they enter, O's on the bottom half); borne-off checkers are drawn
one slab each in the tray. Pip counts, borne-off counts and the dice (on the mover's
side) are written in.

Every drawn checker is an SVG element of class ``checker`` and ``x`` or ``o``, with a
``data-area`` attribute (``"1"`` .. ``"24"``, ``"bar"``, ``"off"``); a stack's count is a
``<text class="count x">`` (or ``o``) with the same ``data-area``, and the pip counts are
``<tspan class="pips" data-side="x">`` (or ``o``): the picture can be read back
(tests/test_show.py counts it against the board).
"""
import pathlib
from html import escape

import numpy as np

from fastbg.constants import BAR, CHECKERS, FIRST_POINT, LAST_POINT, OPP_BAR
from fastbg.position.board import render
from fastbg.position.ids import position_id, read_position
from fastbg.position.moves import validate_dice
from fastbg.validation import check_int

SHOWN = 5           # checkers drawn per stack, as render's rows; a taller one shows its count
# Geometry in SVG user units (pixels at the natural size): one place to change the picture.
CHECKER = 28                    # checker diameter; a point is a little wider
POINT_W = 30
BAR_W = 36
TRAY_W = 40
FRAME = 8
MARGIN = 12
INFO_H = 22                     # a line of text above and below the board
LABEL_H = 18                    # point numbers
HALF_H = SHOWN * CHECKER        # a half of the board holds exactly one full stack
GAP_H = 36                      # the middle strip, where the dice lie
SLAB_H, SLAB_GAP = 8, 1         # a borne-off checker in the tray: 15 fit in a half
DIE = 26
WIDTH = 2 * MARGIN + 3 * FRAME + 12 * POINT_W + BAR_W + TRAY_W   # frames: left, tray, right
HEIGHT = 2 * (INFO_H + LABEL_H + FRAME + HALF_H) + GAP_H

COLOURS = {"x": ("#f4efe2", "#3d3d3d", "#222"),      # fill, outline, count text
           "o": ("#34343a", "#111", "#f4efe2")}
FIELD, FRAME_COLOUR, TRAY = "#3c7a53", "#5a3b22", "#2f5e40"
POINT_COLOURS = ("#e8d7b0", "#a2412f")
# Where each pip of a die face lies, in thirds of the die from its centre.
PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
        4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
        5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
        6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}

_LEFT = MARGIN + FRAME                          # left edge of the playing field
_TOP = INFO_H + LABEL_H + FRAME                 # top edge of the field
_MIDDLE_TOP = _TOP + HALF_H                     # the middle strip's edges
_MIDDLE_BOTTOM = _MIDDLE_TOP + GAP_H
_BOTTOM = _MIDDLE_BOTTOM + HALF_H               # bottom edge of the field
_BAR_X = _LEFT + 6 * POINT_W + BAR_W / 2        # centre of the bar
_TRAY_LEFT = _LEFT + 12 * POINT_W + BAR_W + FRAME
_POINTS = slice(FIRST_POINT, LAST_POINT + 1)
_PIP_OF = np.arange(BAR + 1)                    # a mover's checker on i is i pips from home


def show(position, dice=None, *, width=None):
    """A picture of one position: a :class:`BoardDiagram` (SVG in a notebook, text in a
    terminal).

    position: a board int8[26] seen from the player on roll, a Position ID or an XGID
    (whose dice are drawn when ``dice`` is None). dice: the roll (d1, d2) to draw, or
    None. width: the picture's width in pixels (default its natural 484; the height
    follows). ``ValueError`` for a bad board or dice.

    >>> import fastbg
    >>> picture = fastbg.show(fastbg.START, (3, 1))
    >>> picture.svg.startswith("<svg")
    True
    """
    return BoardDiagram(position, dice, width=width)


class BoardDiagram:
    """A picture of a position (see the module): ``svg`` its SVG text, :meth:`save` writes
    it to a file, ``str()`` and ``repr()`` give :func:`fastbg.render`'s text, and Jupyter
    draws ``_repr_svg_()``. ``board`` (int8[26], a copy) and ``dice`` (a pair or None)
    are what it shows. Built by :func:`fastbg.show`, which takes the same arguments."""

    def __init__(self, position, dice=None, *, width=None):
        board, info = read_position(position, "show")
        if dice is None and info is not None:
            dice = info.dice
        self.board = board
        self.dice = None if dice is None else tuple(int(d) for d in validate_dice(dice))
        self.width = check_int("width", width, 1, none=True)
        self.svg = _svg(board.astype(np.int64), self.dice, self.width)

    def _repr_svg_(self):
        return self.svg

    def save(self, path):
        """Write the SVG text to ``path`` (a ``.svg`` file); returns the path."""
        path = pathlib.Path(path)
        path.write_text(self.svg, encoding="utf-8")
        return path

    def __str__(self):
        text = render(self.board)
        if self.dice is not None:
            text += f"  dice {self.dice[0]}-{self.dice[1]}"
        return text

    __repr__ = __str__


# ------------------------------------------------------------------ drawing

def _column(point):
    """x of the centre of ``point`` (1..24, mover's numbering), and whether it is on top."""
    top = point > 12
    k = point - 13 if top else 12 - point           # 0..11, left to right
    return _LEFT + POINT_W * k + POINT_W / 2 + (BAR_W if k >= 6 else 0), top


def _stack(x, edge, down, n, owner, area):
    """The elements of a stack of ``n`` checkers of ``owner`` ("x" or "o") at ``x``, from
    ``edge`` downwards (``down``) or upwards: at most :data:`SHOWN`, the last with the
    count when there are more."""
    fill, line, ink = COLOURS[owner]
    step = CHECKER if down else -CHECKER
    out = []
    for j in range(min(n, SHOWN)):
        y = edge + step * j + step / 2
        out.append(f'<circle class="checker {owner}" data-area="{area}" cx="{x:g}" '
                   f'cy="{y:g}" r="{CHECKER / 2 - 1:g}" fill="{fill}" stroke="{line}" '
                   'stroke-width="1.5"/>')
    if n > SHOWN:
        y = edge + step * (SHOWN - 1) + step / 2
        out.append(f'<text class="count {owner}" data-area="{area}" x="{x:g}" y="{y + 5:g}" '
                   f'font-size="14" font-weight="bold" text-anchor="middle" '
                   f'fill="{ink}">{n}</text>')
    return out


def _tray(n, owner):
    """The slabs of ``owner``'s ``n`` borne-off checkers: X's from the bottom up, O's from
    the top down."""
    fill, line, _ = COLOURS[owner]
    out = []
    for j in range(n):
        y = (_BOTTOM - (j + 1) * (SLAB_H + SLAB_GAP) if owner == "x"
             else _TOP + SLAB_GAP + j * (SLAB_H + SLAB_GAP))
        out.append(f'<rect class="checker {owner}" data-area="off" x="{_TRAY_LEFT + 4}" '
                   f'y="{y}" width="{TRAY_W - 8}" height="{SLAB_H}" rx="2" fill="{fill}" '
                   f'stroke="{line}"/>')
    return out


def _die(cx, cy, value):
    fill, line, ink = COLOURS["x"]
    third = DIE / 3.6
    out = [f'<rect class="die" x="{cx - DIE / 2:g}" y="{cy - DIE / 2:g}" width="{DIE}" '
           f'height="{DIE}" rx="4" fill="{fill}" stroke="{line}" stroke-width="1.5"/>']
    out += [f'<circle class="pip" cx="{cx + dx * third:g}" cy="{cy + dy * third:g}" r="2.6" '
            f'fill="{ink}"/>' for dx, dy in PIPS[value]]
    return out


def _info(y, owner, pips, off, note=""):
    """One line of text under or over the board: the side's swatch, pips and borne-off."""
    fill, line, _ = COLOURS[owner]
    name = owner.upper()
    return [f'<circle class="swatch" cx="{MARGIN + 7}" cy="{y - 5}" r="7" fill="{fill}" '
            f'stroke="{line}"/>',
            f'<text x="{MARGIN + 20}" y="{y}" font-size="13">'
            f'<tspan font-weight="bold">{name}</tspan>'
            f'<tspan class="pips" data-side="{owner}" dx="10">pips {pips}</tspan>'
            f'<tspan class="off" data-side="{owner}" dx="10">off {off}</tspan>'
            + (f'<tspan dx="10">{escape(note)}</tspan>' if note else "") + '</text>']


def _svg(b, dice, width):
    """The SVG text of checked board ``b`` (int64 (26,)) with ``dice`` (a pair or None)."""
    on_board_x = int(np.clip(b[_POINTS], 0, None).sum() + b[BAR])
    on_board_o = int(np.clip(-b[_POINTS], 0, None).sum() - b[OPP_BAR])
    # the same sums as fastbg.pip_counts, here on the board already checked at the door
    pips_x = int(np.clip(b, 0, None) @ _PIP_OF)
    pips_o = int(np.clip(-b, 0, None) @ (BAR - _PIP_OF))
    scale = 1 if width is None else width / WIDTH
    about = f"fastbg position {position_id(b.astype(np.int8))}, X on roll" + (
        "" if dice is None else f" to play {dice[0]}-{dice[1]}")
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="fastbg-board" '
           f'width="{WIDTH * scale:g}" height="{HEIGHT * scale:g}" '
           f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif">',
           f'<title>{escape(about)}</title>',
           f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
           f'<rect x="{MARGIN}" y="{_TOP - FRAME}" width="{WIDTH - 2 * MARGIN}" '
           f'height="{_BOTTOM - _TOP + 2 * FRAME}" rx="4" fill="{FRAME_COLOUR}"/>']
    for left in (_LEFT, _LEFT + 6 * POINT_W + BAR_W):
        out.append(f'<rect x="{left}" y="{_TOP}" width="{6 * POINT_W}" '
                   f'height="{_BOTTOM - _TOP}" fill="{FIELD}"/>')
    for top in (_TOP, _MIDDLE_BOTTOM):                      # O's tray above, X's below
        out.append(f'<rect x="{_TRAY_LEFT}" y="{top}" width="{TRAY_W}" '
                   f'height="{HALF_H}" fill="{TRAY}"/>')
    for point in range(FIRST_POINT, LAST_POINT + 1):
        x, top = _column(point)
        edge, tip = (_TOP, _TOP + HALF_H - 10) if top else (_BOTTOM, _BOTTOM - HALF_H + 10)
        colour = POINT_COLOURS[point % 2]
        out.append(f'<polygon class="point" points="{x - POINT_W / 2:g},{edge} '
                   f'{x + POINT_W / 2:g},{edge} {x:g},{tip}" fill="{colour}"/>')
        label_y = _TOP - FRAME - 5 if top else _BOTTOM + FRAME + 13
        out.append(f'<text class="label" x="{x:g}" y="{label_y}" font-size="11" '
                   f'text-anchor="middle" fill="#444">{point}</text>')
    for point in range(FIRST_POINT, LAST_POINT + 1):
        n = int(b[point])
        if n:
            x, top = _column(point)
            out += _stack(x, _TOP if top else _BOTTOM, top, abs(n), "x" if n > 0 else "o",
                          point)
    out += _stack(_BAR_X, _MIDDLE_TOP, False, int(b[BAR]), "x", "bar")
    out += _stack(_BAR_X, _MIDDLE_BOTTOM, True, int(-b[OPP_BAR]), "o", "bar")
    out += _tray(CHECKERS - on_board_x, "x")
    out += _tray(CHECKERS - on_board_o, "o")
    if dice is not None:
        right = _LEFT + 9 * POINT_W + BAR_W                 # centre of the mover's half
        middle = (_MIDDLE_TOP + _MIDDLE_BOTTOM) / 2
        out += _die(right - DIE * 0.7, middle, dice[0])
        out += _die(right + DIE * 0.7, middle, dice[1])
    out += _info(INFO_H - 6, "o", pips_o, CHECKERS - on_board_o)
    out += _info(HEIGHT - 6, "x", pips_x, CHECKERS - on_board_x, "on roll")
    out.append("</svg>")
    return "\n".join(out)
