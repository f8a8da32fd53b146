"""Pictures and notebook tables: fastbg.show's SVG read back against the board, and the
``_repr_html_`` tables of the results classes (one row a candidate, bot, pair...)."""
import collections
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np
import pytest
from hypothesis import given, settings

import fastbg
from fastbg.html_tables import html_table
from strategies import positions, selfplay_positions

SVG = "{http://www.w3.org/2000/svg}"
SHOWN = 5           # checkers drawn per stack before the count is written instead


def board_of(points=(), mover_bar=0, opp_bar=0):
    """A board from {point: count} (mover positive, opponent negative) and the bar counts."""
    b = np.zeros(26, dtype=np.int8)
    for p, n in dict(points).items():
        b[p] = n
    b[25], b[0] = mover_bar, -opp_bar
    return b


BOARDS = {
    "start": fastbg.START,
    # X  bar 3, O bar 7 (a bar stack taller than five shows its count)
    "bars": board_of({24: 2, 13: 5, 6: 5, 1: -2, 12: -5, 19: -1}, mover_bar=3, opp_bar=7),
    # a bear-off: X has borne off 9, O 13
    "borne off": board_of({1: 2, 2: 1, 4: 3, 24: -1, 20: -1}),
    # every checker on one point each, and everything off
    "stacks of 15": board_of({6: 15, 19: -15}),
    "all off": board_of({}),
    "15 on the bar": board_of({}, mover_bar=15, opp_bar=15),
}


def counted(board):
    """{(area, side): checkers} counted from the array one entry at a time, the slow way."""
    out = collections.Counter()
    for i, n in enumerate(np.asarray(board).tolist()):
        side = "x" if n > 0 else "o"
        area = "bar" if i in (0, 25) else str(i)
        for _ in range(abs(n)):
            out[area, side] += 1
    for side in "xo":
        on = sum(n for (area, s), n in out.items() if s == side)
        if on < 15:
            out["off", side] = 15 - on
    return out


def drawn(svg):
    """({(area, side): shapes drawn}, {(area, side): count written}) read from the SVG."""
    root = ET.fromstring(svg)
    shapes, labels = collections.Counter(), {}
    for el in root.iter():
        cls = el.get("class", "").split()
        if "checker" in cls:
            side, = set(cls) & {"x", "o"}
            shapes[el.get("data-area"), side] += 1
        elif "count" in cls:
            side, = set(cls) & {"x", "o"}
            labels[el.get("data-area"), side] = int(el.text)
    return shapes, labels


def assert_pictures(board):
    want = counted(board)
    shapes, labels = drawn(fastbg.show(board).svg)
    assert set(shapes) == set(want)
    for key, n in want.items():
        if key[0] == "off":                         # every borne-off checker is a slab
            assert shapes[key] == n and key not in labels
        elif n > SHOWN:                             # five drawn, the count on the fifth
            assert shapes[key] == SHOWN and labels[key] == n, key
        else:
            assert shapes[key] == n and key not in labels, key
    assert set(labels) <= set(want)


@pytest.mark.parametrize("name", BOARDS)
def test_checkers_drawn_match_the_board(name):
    assert_pictures(BOARDS[name])


def test_checkers_drawn_match_selfplay_positions():
    for board in selfplay_positions(200, seed=7):       # hits, bar entries and bear-offs
        assert_pictures(board)


@settings(max_examples=60, deadline=None)
@given(positions())
def test_checkers_drawn_match_any_position(board):
    assert_pictures(board)


@pytest.mark.parametrize("name", BOARDS)
def test_pip_counts_written_are_fastbg_pip_counts(name):
    board = BOARDS[name]
    root = ET.fromstring(fastbg.show(board).svg)
    pips = {el.get("data-side"): int(el.text.split()[1]) for el in root.iter()
            if el.get("class") == "pips"}
    off = {el.get("data-side"): int(el.text.split()[1]) for el in root.iter()
           if el.get("class") == "off"}
    assert (pips["x"], pips["o"]) == fastbg.pip_counts(board)
    assert (off.get("x"), off.get("o")) == (counted(board)["off", "x"],
                                           counted(board)["off", "o"])


def test_points_numbered_in_the_movers_numbering():
    root = ET.fromstring(fastbg.show(fastbg.START).svg)
    labels = [el for el in root.iter(SVG + "text") if el.get("class") == "label"]
    assert sorted(int(el.text) for el in labels) == list(range(1, 25))
    x = {int(el.text): float(el.get("x")) for el in labels}
    y = {int(el.text): float(el.get("y")) for el in labels}
    # as render: 13..24 along the top left to right, 12..1 along the bottom
    assert [p for p in sorted(x, key=lambda p: (y[p], x[p]))] == (
        list(range(13, 25)) + list(range(12, 0, -1)))
    # point 13's checkers (X's five) stand over its label
    stack = [el for el in root.iter(SVG + "circle") if el.get("data-area") == "13"]
    assert len(stack) == 5 and all(float(el.get("cx")) == x[13] for el in stack)


@pytest.mark.parametrize("dice", [None, (3, 1), (6, 6), (5, 2)])
def test_dice_drawn(dice):
    root = ET.fromstring(fastbg.show(fastbg.START, dice).svg)
    faces = [el for el in root.iter() if el.get("class") == "die"]
    pips = [el for el in root.iter() if el.get("class") == "pip"]
    assert len(faces) == (0 if dice is None else 2)
    assert len(pips) == (0 if dice is None else sum(dice))


def test_xgid_gives_its_dice_and_a_position_id_its_board():
    x = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
    picture = fastbg.show(x)
    assert picture.dice == (3, 1)
    np.testing.assert_array_equal(picture.board, fastbg.START)
    assert fastbg.show(x, (6, 5)).dice == (6, 5)
    np.testing.assert_array_equal(fastbg.show("4HPwATDgc/ABMA").board, fastbg.START)


def test_text_save_and_width(tmp_path):
    picture = fastbg.show(fastbg.START, (4, 2), width=242)
    assert isinstance(picture, fastbg.BoardDiagram)
    assert str(picture) == repr(picture) == fastbg.render(fastbg.START) + "  dice 4-2"
    assert str(fastbg.show(fastbg.START)) == fastbg.render(fastbg.START)
    assert picture._repr_svg_() == picture.svg
    root = ET.fromstring(picture.svg)
    assert float(root.get("width")) == 242
    path = picture.save(tmp_path / "start.svg")
    assert ET.parse(path).getroot().tag == SVG + "svg"


@pytest.mark.parametrize("board, dice, message", [
    (np.zeros(25, np.int8), None, "shape"),
    (board_of({6: 16}), None, "more than 15"),
    (board_of({6: 10, 5: 6}), None, "mover has 16"),
    (np.full(26, 0.5), None, "integers"),
    (np.stack([fastbg.START, fastbg.START]), None, "one position"),
    (fastbg.START, (0, 3), "between 1 and 6"),
    (fastbg.START, (3,), "shape"),
    ("not a position id", None, "Position ID"),
])
def test_bad_input_raises(board, dice, message):
    with pytest.raises(ValueError, match=message):
        fastbg.show(board, dice)


def test_bad_width_raises():
    with pytest.raises(ValueError, match="width"):
        fastbg.show(fastbg.START, width=0)


# ------------------------------------------------------------------ HTML tables

class Tables(HTMLParser):
    """The tables of an HTML fragment (caption, header cells, body rows of cells); fails
    on a tag closed out of order."""
    VOID = {"br", "hr", "img", "meta", "input", "col"}

    def __init__(self, text):
        super().__init__()
        self.tables, self.open, self.cell = [], [], None
        self.feed(text)
        self.close()
        assert not self.open, f"unclosed tags: {self.open}"

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.open.append(tag)
        if tag == "table":
            self.tables.append({"caption": None, "head": [], "rows": []})
        elif tag == "tr" and "tbody" in self.open:
            self.tables[-1]["rows"].append([])
        elif tag in ("td", "th", "caption"):
            self.cell = ""

    def handle_endtag(self, tag):
        assert self.open and self.open[-1] == tag, f"</{tag}> closes {self.open[-1:]}"
        self.open.pop()
        table = self.tables[-1] if self.tables else None
        if tag == "caption":
            table["caption"] = self.cell
        elif tag == "th":
            table["head"].append(self.cell)
        elif tag == "td":
            table["rows"][-1].append(self.cell)

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def test_html_table_escapes_and_checks_its_rows():
    text = html_table(["bot", "wins"], [["<b>a&b</b>", " 3 "]], caption="x < y", align="lr")
    assert "<b>" not in text and "&lt;b&gt;a&amp;b" in text
    t, = Tables(text).tables
    assert t == {"caption": "x < y", "head": ["bot", "wins"], "rows": [["<b>a&b</b>", "3"]]}
    with pytest.raises(ValueError, match="cells"):
        html_table(["a", "b"], [[1]])
    with pytest.raises(ValueError, match="align"):
        html_table(["a", "b"], [[1, 2]], align="lx")


def test_game_and_match_results_html():
    res = fastbg.play(40, ("pubeval", "random"), seed=3)
    t, = Tables(res._repr_html_()).tables
    assert [row[1] for row in t["rows"]] == ["pubeval", "random"]
    assert sum(int(row[2]) for row in t["rows"]) == res.n_games
    matches = fastbg.play_matches(4, 3, ("pubeval", "random"), seed=3)
    t, = Tables(matches._repr_html_()).tables
    assert [row[1] for row in t["rows"]] == ["pubeval", "random"]
    assert sum(int(row[2]) for row in t["rows"]) == matches.n_matches


def test_tournament_html_has_a_row_per_bot_and_pair():
    res = fastbg.tournament(["random", "pubeval", "greedy"], games=6, seed=2)
    bots, pairs, matrix = Tables(res._repr_html_()).tables
    assert sorted(row[1] for row in bots["rows"]) == sorted(res.names)
    assert len(pairs["rows"]) == len(res.pairs) == 3
    assert [row[0] for row in matrix["rows"]] == matrix["head"][1:] == res.names
    # the same cells as the text report
    text = res.table()
    assert all(cell in text for row in bots["rows"] + pairs["rows"] for cell in row)


def test_rollout_html():
    res = fastbg.rollout(fastbg.START, trials=36, bot="pubeval", seed=1)
    html = res._repr_html_()
    assert ET.fromstring(html[html.index("<svg"):html.index("</svg>") + 6]) is not None
    t, = Tables(html).tables
    assert [row[0] for row in t["rows"]] == ["win", "win gammon", "win backgammon",
                                            "lose gammon", "lose backgammon",
                                            "cubeless equity"]
    assert float(t["rows"][0][1]) == pytest.approx(res.probabilities[0], abs=5e-5)
    np.testing.assert_array_equal(res.show().board, fastbg.START)


def test_move_and_cube_rollout_html():
    moves = ["8/5 6/5", "24/21 6/5", "13/10 6/5"]
    res = fastbg.rollout_moves(fastbg.START, (3, 1), moves=moves, trials=36, bot="pubeval")
    t, = Tables(res._repr_html_()).tables
    assert sorted(row[1] for row in t["rows"]) == sorted(moves)
    assert [row[1] for row in t["rows"]] == [r.move for r in res.rows]
    assert res.show().dice == (3, 1)
    cube = fastbg.rollout_cube(fastbg.START, trials=36, bot="pubeval")
    actions, cubeless = Tables(cube._repr_html_()).tables
    assert [row[0] for row in actions["rows"]][:3] == ["No double", "Double, take",
                                                     "Double, pass"]
    assert len(cubeless["rows"]) == 1


def test_hint_html_has_a_row_per_candidate(gnubg_net):
    h = fastbg.hint(fastbg.START, (3, 1), net=gnubg_net)
    html = h._repr_html_()
    t, = Tables(html).tables
    assert [row[2] for row in t["rows"]] == [c.move for c in h]
    assert t["rows"][0][4] == ""                        # the best has no difference
    assert "<svg" in html and h.show().dice == (3, 1)
