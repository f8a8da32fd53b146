"""Tests of fastbg.met: the Kazaross-XG2 table, score conventions, gnubg MET XML files.

Worked numbers are those of docs/cube.md section 3 (Kazaross-XG2, gnubg's default).
"""
import json
import importlib.resources

import numpy as np
import pytest

from fastbg.cube import met as metmod
from fastbg.cube.met import MET, equity, load_default, load_gnubg_xml, mwc_after, parse_gnubg_xml

KAZAROSS = load_default()
N = KAZAROSS.length


def package_json():
    text = importlib.resources.files("fastbg").joinpath("data", "met-kazaross-xg2.json").read_text()
    return json.loads(text)


# ---------------------------------------------------------------- the default table

def test_default_table_is_the_package_data_and_cached():
    data = package_json()
    assert KAZAROSS.length == 25 and "Kazaross" in KAZAROSS.name
    np.testing.assert_array_equal(KAZAROSS.pre_crawford, np.array(data["pre_crawford"]))
    np.testing.assert_array_equal(KAZAROSS.post_crawford[0], np.array(data["post_crawford"]))
    np.testing.assert_array_equal(KAZAROSS.post_crawford[1], np.array(data["post_crawford"]))
    assert load_default() is KAZAROSS
    with pytest.raises(ValueError):
        KAZAROSS.pre_crawford[3, 3] = 0.1        # read-only: the cached table cannot be spoilt


@pytest.mark.parametrize("away0, away1, kind, mwc", [
    (2, 1, "post", 0.48803),     # post-Crawford trailer at 2-away (free drop included)
    (4, 1, "post", 0.31002),
    (3, 1, "post", 0.32264),
    (1, 2, "crawford", 0.67736),  # Crawford game leader against 2-away
    (1, 3, "crawford", 0.75076),
    (2, 1, "crawford", 0.32264),
    (5, 5, None, 0.5),
    (4, 5, None, 0.57732),
    (2, 3, None, 0.59947),
    (25, 1, "crawford", 0.00095),
])
def test_worked_equities(away0, away1, kind, mwc):
    got = equity(away0, away1, crawford=kind == "crawford", post_crawford=kind == "post")
    assert got == pytest.approx(mwc, abs=1e-12)
    assert KAZAROSS.equity(away0, away1, crawford=kind == "crawford",
                           post_crawford=kind == "post") == got


def test_post_crawford_leader_is_the_complement():
    for n in range(2, N + 1):
        trailer = equity(n, 1, post_crawford=True)
        assert equity(1, n, post_crawford=True) == pytest.approx(1 - trailer)


def test_symmetry_everywhere():
    """MWC(a, b) + MWC(b, a) = 1 for every score and game kind the table covers."""
    for a in range(1, N + 1):
        for b in range(1, N + 1):
            if a == 1 and b == 1:
                assert equity(1, 1) == 0.5 == equity(1, 1, post_crawford=True)
            elif a == 1 or b == 1:
                for kind in ("crawford", "post"):
                    flags = dict(crawford=kind == "crawford", post_crawford=kind == "post")
                    assert equity(a, b, **flags) + equity(b, a, **flags) == pytest.approx(1.0)
            else:
                assert equity(a, b) + equity(b, a) == pytest.approx(1.0, abs=1e-12)


def test_needing_fewer_points_never_hurts():
    for a in range(2, N):
        for b in range(2, N + 1):
            assert equity(a, b) >= equity(a + 1, b)
    for a in range(2, N):                  # the post-Crawford trailer, row by row
        assert equity(a, 1, post_crawford=True) >= equity(a + 1, 1, post_crawford=True)


def test_finished_matches():
    assert equity(0, 5) == 1.0 and equity(-2, 3) == 1.0
    assert equity(3, 0) == 0.0 and equity(7, -1) == 0.0
    assert equity(0, 30) == 1.0            # beyond the table does not matter once won


@pytest.mark.parametrize("args, message", [
    ((5, 5, True, False), "needs a side at 1-away"),
    ((5, 5, False, True), "needs a side at 1-away"),
    ((1, 5, True, True), "not both"),
    ((1, 1, True, False), "cannot be the Crawford game"),
    ((1, 4, False, False), "say whether this is the Crawford game"),
    ((0, 0, False, False), "cannot have won"),
    ((0, 3, True, False), "match is over"),
    ((26, 3, False, False), "beyond this 25-point table"),
    ((3, 40, False, False), "beyond this 25-point table"),
    ((1, 26, False, True), "beyond this 25-point table"),
])
def test_impossible_combinations(args, message):
    a0, a1, crawford, post = args
    with pytest.raises(ValueError, match=message):
        equity(a0, a1, crawford=crawford, post_crawford=post)


@pytest.mark.parametrize("bad", [2.5, "3", None, True])
def test_aways_must_be_integers(bad):
    with pytest.raises(TypeError):
        equity(bad, 3)
    assert equity(np.int64(3), np.int8(4)) == equity(3, 4)


# ---------------------------------------------------------------- results of a game

def test_mwc_after_follows_gnubg_getme():
    # pre-Crawford: plain table entries
    assert mwc_after(5, 5, 1) == equity(4, 5)
    assert mwc_after(5, 5, -2) == equity(5, 3)
    assert mwc_after(5, 5, 3) == equity(2, 5)
    # reaching 1-away starts the Crawford game
    assert mwc_after(2, 2, 1) == equity(1, 2, crawford=True) == 0.67736
    assert mwc_after(4, 2, -1) == equity(4, 1, crawford=True)
    # from the Crawford game or post-Crawford, the next game is post-Crawford
    assert mwc_after(1, 3, -1) == equity(1, 2, post_crawford=True)
    assert mwc_after(3, 1, 1) == equity(2, 1, post_crawford=True) == 0.48803
    assert mwc_after(1, 4, -2) == pytest.approx(1 - 0.48803)
    assert mwc_after(2, 1, 1) == 0.5 == mwc_after(1, 2, -1)     # double match point next
    # match over
    assert mwc_after(3, 5, 3) == 1.0 and mwc_after(3, 5, -6) == 0.0 and mwc_after(1, 9, 1) == 1.0


def test_mwc_after_rejects_nonsense():
    with pytest.raises(ValueError, match="at least one point"):
        mwc_after(3, 3, 0)
    with pytest.raises(ValueError, match="already over"):
        mwc_after(0, 3, 1)


# ---------------------------------------------------------------- the MET class

def test_met_constructor_checks_shapes_and_values():
    with pytest.raises(ValueError, match="square"):
        MET(np.full((2, 3), 0.5), [0.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="post_crawford must hold 2"):
        MET(np.full((2, 2), 0.5), [0.5])
    with pytest.raises(ValueError, match="0..1"):
        MET([[0.5, 1.2], [-0.2, 0.5]], [0.5, 0.4])
    with pytest.raises(TypeError, match="fastbg.met.MET"):
        equity(3, 3, met="kazaross")


def test_small_table_and_player_specific_post_crawford_rows():
    m = MET([[0.5, 0.7, 0.8], [0.3, 0.5, 0.6], [0.2, 0.4, 0.5]],
            [[0.5, 0.45, 0.3], [0.5, 0.40, 0.25]], name="toy")
    assert m.length == 3 and repr(m) == "MET(name='toy', length=3)"
    assert m.equity(2, 3) == 0.6
    assert m.equity(1, 3, crawford=True) == 0.8
    assert m.equity(2, 1, post_crawford=True) == 0.45          # first player trails: row 0
    assert m.equity(1, 2, post_crawford=True) == pytest.approx(0.6)  # second trails: 1 - row 1
    with pytest.raises(ValueError, match="beyond this 3-point table"):
        m.equity(4, 2)
    assert mwc_after(3, 3, 1, met=m) == 0.6


# ---------------------------------------------------------------- gnubg XML files

def test_xml_round_trip_of_the_default_table(tmp_path):
    path = tmp_path / "kazaross.xml"
    path.write_text(KAZAROSS.to_gnubg_xml())
    back = load_gnubg_xml(path)
    np.testing.assert_array_equal(back.pre_crawford, KAZAROSS.pre_crawford)
    np.testing.assert_array_equal(back.post_crawford, KAZAROSS.post_crawford)
    assert back.name == KAZAROSS.name and back.description == KAZAROSS.description
    assert back.equity(2, 1, post_crawford=True) == 0.48803


def test_xml_round_trip_with_two_post_crawford_rows():
    m = MET(np.full((2, 2), 0.5), [[0.5, 0.45], [0.5, 0.4]], name="a & b <c>")
    text = m.to_gnubg_xml()
    assert 'player="0"' in text and 'player="1"' in text and "a &amp; b &lt;c&gt;" in text
    back = parse_gnubg_xml(text)
    np.testing.assert_array_equal(back.post_crawford, m.post_crawford)
    assert back.name == "a & b <c>"


def gnubg_layout(n, pre, post, close_met_early=False, post_player="both"):
    """A MET file laid out as gnubg's met/Kazaross-XG2.xml: prolog, comment, one value a line,
    and (as that file does) ``</met>`` closed right after ``<info>`` when asked."""
    rows = "\n".join(
        "    <row>\n" + "".join(f"      <me>{v:.6f}</me>\n" for v in r) + "    </row>\n"
        for r in pre)
    post_row = "".join(f"      <me>{v}</me>\n" for v in post)
    return f"""<?xml version = "1.0"?>
<!DOCTYPE met PUBLIC "-//GNU Backgammon//DTD Match Equity Tables//EN"
                     "met.dtd">

<!--

     test.xml

     Copying and distribution of verbatim and modified versions of this file
     is permitted in any medium. <row><me>9</me></row>

 -->

<met>
  <info>
    <name>Test table</name>
    <description>Written in gnubg's layout</description>
    <length>{n}</length>
  </info>
{"</met>" if close_met_early else ""}
  <pre-crawford-table type="explicit">
{rows}
  </pre-crawford-table>

  <post-crawford-table type="explicit" player="{post_player}">
    <row>
{post_row}    </row>

  </post-crawford-table>

</met>

"""


def test_reads_gnubg_layout_with_the_misplaced_met_close(tmp_path):
    data = package_json()
    pre = np.array(data["pre_crawford"])
    text = gnubg_layout(25, pre, data["post_crawford"], close_met_early=True)
    path = tmp_path / "Kazaross-XG2.xml"
    path.write_text(text)
    m = load_gnubg_xml(path)
    assert m.name == "Test table" and m.length == 25
    np.testing.assert_allclose(m.pre_crawford, pre, atol=5e-7)
    np.testing.assert_array_equal(m.post_crawford[0], data["post_crawford"])
    assert m.equity(1, 3, crawford=True) == 0.75076


def test_short_post_crawford_row_is_extended_like_gnubg():
    """gnubg copies length-1 post-Crawford entries and computes the n-away one."""
    post = [0.5, 0.48803, 0.32264]                      # a 4-point table, 3 entries
    pre = KAZAROSS.pre_crawford[:4, :4]
    m = parse_gnubg_xml(gnubg_layout(4, pre, post))
    expected = 0.25 * 0.5 * 1.0 + 0.75 * 0.5 * 0.48803 - 0.004   # index 3 (4-away)
    assert m.post_crawford[0, 3] == pytest.approx(expected)


def test_single_player_post_crawford_table_is_not_enough():
    text = gnubg_layout(2, [[0.5, 0.7], [0.3, 0.5]], [0.5, 0.48], post_player="0")
    with pytest.raises(ValueError, match="for both players"):
        parse_gnubg_xml(text)
    both = text.replace("</met>\n\n", "") + (
        '<post-crawford-table type="explicit" player="1"><row><me>0.5</me><me>0.4</me></row>'
        "</post-crawford-table></met>")
    m = parse_gnubg_xml(both)
    assert m.post_crawford.tolist() == [[0.5, 0.48], [0.5, 0.4]]


ZADEH = """<?xml version = "1.0"?>
<met>
   <info><name>N. Zadeh</name><description>x</description><length>-1</length></info>
   <pre-crawford-table type="zadeh">
      <parameters><parameter name="delta">0.08</parameter></parameters>
   </pre-crawford-table>
   <post-crawford-table type="zadeh">
      <parameters><parameter name="free-drop-2-away">0.015</parameter></parameters>
   </post-crawford-table>
</met>
"""


@pytest.mark.parametrize("text, message", [
    ("hello", "no <met> element"),
    ("<met><info><length>2</length></info><pre-crawford-table>", "not a valid gnubg MET"),
    (ZADEH, "positive <length>"),
    (ZADEH.replace("-1", "2"), "only explicit tables"),
    ("<met><info><length>2</length></info><pre-crawford-table><row><me>0.5</me></row>"
     "<row><me>0.5</me></row></pre-crawford-table></met>", "2 rows of 2 entries"),
    ("<met><info><length>1</length></info><pre-crawford-table><row><me>1.5</me></row>"
     "</pre-crawford-table><post-crawford-table><row><me>0.5</me></row>"
     "</post-crawford-table></met>", "0..1"),
    ("<met><info><length>1</length></info><pre-crawford-table><row><me>half</me></row>"
     "</pre-crawford-table></met>", "not a number"),
    ("<met><info><length>x</length></info></met>", "must be an integer"),
    ("<met><info><name>n</name></info></met>", "no <info><length>"),
    ("<met><info><length>1</length></info></met>", "no <pre-crawford-table>"),
])
def test_malformed_xml_is_refused(text, message):
    with pytest.raises(ValueError, match=message):
        parse_gnubg_xml(text)


def test_module_exports():
    for name in ("MET", "load_default", "load_gnubg_xml", "parse_gnubg_xml", "equity",
                 "mwc_after"):
        assert callable(getattr(metmod, name))
