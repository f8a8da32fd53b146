"""Match equity tables (METs): match-winning chances at a score.

A :class:`MET` holds two tables, as GNU Backgammon does (``matchequity.c``):

* ``pre_crawford[i, j]``: the match-winning chance (MWC) of a player who needs ``i + 1``
  points against one who needs ``j + 1``, at the start of a game with the cube centred.
  Row and column 0 belong to the Crawford game: ``pre_crawford[0, j]`` is the 1-away
  leader's chance in the Crawford game against a ``(j + 1)``-away trailer.
* ``post_crawford[k, n]``: the chance of the trailer needing ``n + 1`` points against a
  1-away leader in a post-Crawford game; row ``k`` is used when the trailer is the first
  (``k = 0``) or the second (``k = 1``) player of a lookup. gnubg files say which with the
  ``player`` attribute ("0", "1" or "both"); every table gnubg ships uses "both".

:func:`load_default` gives Kazaross-XG2 (gnubg's default), from the package data
``fastbg/data/met-kazaross-xg2.json``; :func:`load_gnubg_xml` reads gnubg's MET XML files.
Tables are not extended past their length (gnubg extends to 64 points with Montgomery's
normal-distribution formula): a lookup beyond the table raises ``ValueError``.

Conventions (docs/cube.md section 3, gnubg ``getME`` / ``getMEAtScore``): an "away" is
the number of points a player still needs; 0 or less means that player has won the match.
"""
import functools
import importlib.resources
import json
import operator
import re
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape

import numpy as np

DEFAULT_MET_FILE = "met-kazaross-xg2.json"


def _away(name, value):
    """``value`` as a Python int (any integral type), else ``TypeError``."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer number of points, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer number of points, got {value!r}") from None


def _table(values, shape_text):
    a = np.array(values, dtype=np.float64)
    if not np.all(np.isfinite(a)) or a.size and (a.min() < 0.0 or a.max() > 1.0):
        raise ValueError(f"{shape_text} holds match-winning chances, which lie in 0..1")
    return a


class MET:
    """A match equity table: ``pre_crawford`` (n x n) and ``post_crawford`` (2 x n).

    ``post_crawford`` may also be given as one row of n values (gnubg's ``player="both"``).
    The arrays are stored read-only as ``float64``; ``name`` and ``description`` are free text.

    >>> met = load_default()
    >>> met.length, met.equity(5, 5)
    (25, 0.5)
    """

    def __init__(self, pre_crawford, post_crawford, name="", description=""):
        pre = _table(pre_crawford, "pre_crawford")
        if pre.ndim != 2 or pre.shape[0] != pre.shape[1] or pre.shape[0] < 1:
            raise ValueError(f"pre_crawford must be a square n x n table, got shape {pre.shape}")
        n = pre.shape[0]
        post = _table(post_crawford, "post_crawford")
        if post.ndim == 1:
            post = np.stack([post, post])
        if post.shape != (2, n):
            raise ValueError(
                f"post_crawford must hold {n} values (or 2 rows of {n}), got shape {post.shape}")
        pre.setflags(write=False)
        post.setflags(write=False)
        self._pre = pre
        self._post = post
        self.name = str(name)
        self.description = str(description)

    pre_crawford = property(lambda self: self._pre, doc="float64[n, n], read-only")
    post_crawford = property(lambda self: self._post, doc="float64[2, n], read-only")

    @property
    def length(self):
        """The longest away the table covers (25 for Kazaross-XG2)."""
        return self._pre.shape[0]

    def __repr__(self):
        return f"MET(name={self.name!r}, length={self.length})"

    def _check_away(self, away):
        if away > self.length:
            raise ValueError(
                f"{away}-away is beyond this {self.length}-point table ({self.name or 'MET'}); "
                f"tables are not extended")

    def equity(self, away0, away1, crawford=False, post_crawford=False):
        """Same as the module function :func:`equity` with this table."""
        return equity(away0, away1, crawford=crawford, post_crawford=post_crawford, met=self)

    def to_gnubg_xml(self):
        """This table as text in gnubg's MET XML layout (``met/*.xml``, DTD ``met.dtd``)."""
        def row(values):
            cells = "".join(f"      <me>{v!r}</me>\n" for v in values.tolist())
            return f"    <row>\n{cells}    </row>\n"

        same = np.array_equal(self._post[0], self._post[1])
        posts = [("both", self._post[0])] if same else [("0", self._post[0]), ("1", self._post[1])]
        post_xml = "".join(
            f'  <post-crawford-table type="explicit" player="{who}">\n{row(values)}'
            f"  </post-crawford-table>\n" for who, values in posts)
        return (
            '<?xml version = "1.0"?>\n'
            '<!DOCTYPE met PUBLIC "-//GNU Backgammon//DTD Match Equity Tables//EN" "met.dtd">\n'
            "<met>\n  <info>\n"
            f"    <name>{escape(self.name)}</name>\n"
            f"    <description>{escape(self.description)}</description>\n"
            f"    <length>{self.length}</length>\n  </info>\n"
            '  <pre-crawford-table type="explicit">\n'
            + "".join(row(r) for r in self._pre)
            + "  </pre-crawford-table>\n" + post_xml + "</met>\n")


@functools.lru_cache(maxsize=None)
def load_default():
    """The Kazaross-XG2 table (GNU Backgammon's default), loaded once from package data."""
    text = importlib.resources.files("fastbg").joinpath("data", DEFAULT_MET_FILE).read_text()
    data = json.loads(text)
    return MET(data["pre_crawford"], data["post_crawford"],
               name=data.get("name", ""), description=data.get("description", ""))


def _met(met):
    if met is None:
        return load_default()
    if not isinstance(met, MET):
        raise TypeError(f"met must be a fastbg.met.MET (or None for the default), got {met!r}")
    return met


# ------------------------------------------------------------------ lookups

def equity(away0, away1, crawford=False, post_crawford=False, met=None):
    """Match-winning chance of the player needing ``away0`` points against one needing ``away1``.

    At the start of a game with the cube centred. ``away0 <= 0`` (that player has won) gives
    1.0 and ``away1 <= 0`` gives 0.0. When one side is 1-away the table depends on the game:

    * ``crawford=True``: this is the Crawford game (pre-Crawford row/column 0);
    * ``post_crawford=True``: a later game (the post-Crawford table).

    One of the two must be given then (``ValueError`` otherwise: the two differ, e.g. 2-away
    trailer 0.32264 in the Crawford game, 0.48803 post-Crawford with Kazaross-XG2). Both sides
    at 1-away is double match point, necessarily post-Crawford: 0.5 for symmetric tables.
    ``ValueError`` too for impossible combinations (both flags; Crawford or post-Crawford with
    nobody 1-away; a Crawford game at 1-away/1-away; both sides already won) and for aways
    beyond the table.

    >>> equity(1, 2, crawford=True), equity(2, 1, post_crawford=True)
    (0.67736, 0.48803)
    """
    a0, a1 = _away("away0", away0), _away("away1", away1)
    m = _met(met)
    if crawford and post_crawford:
        raise ValueError("a game is either the Crawford game or post-Crawford, not both")
    if a0 <= 0 and a1 <= 0:
        raise ValueError(f"both players cannot have won ({a0}-away, {a1}-away)")
    if a0 <= 0 or a1 <= 0:
        if crawford or post_crawford:
            raise ValueError("the match is over: no Crawford or post-Crawford game")
        return 1.0 if a0 <= 0 else 0.0
    m._check_away(a0)
    m._check_away(a1)
    one_away = a0 == 1 or a1 == 1
    if (crawford or post_crawford) and not one_away:
        kind = "the Crawford game" if crawford else "a post-Crawford game"
        raise ValueError(f"{kind} needs a side at 1-away, got {a0}-away, {a1}-away")
    if crawford and a0 == 1 and a1 == 1:
        raise ValueError("1-away/1-away cannot be the Crawford game (it starts when the first "
                         "player reaches match point, the other still needing more)")
    if not one_away:
        return float(m.pre_crawford[a0 - 1, a1 - 1])
    if a0 == 1 and a1 == 1:
        return float(1.0 - m.post_crawford[1, 0])      # gnubg getME: player 0 "leads"
    if not crawford and not post_crawford:
        raise ValueError(
            f"{a0}-away, {a1}-away: say whether this is the Crawford game (crawford=True) or a "
            f"post-Crawford game (post_crawford=True)")
    if crawford:
        return float(m.pre_crawford[a0 - 1, a1 - 1])
    if a0 == 1:                                        # player 0 leads
        return float(1.0 - m.post_crawford[1, a1 - 1])
    return float(m.post_crawford[0, a0 - 1])


def mwc_after(away0, away1, points, met=None):
    """Match-winning chance of player 0 once the current game ends with ``points`` to player 0.

    ``points > 0``: player 0 won that many points; ``points < 0``: player 1 won ``-points``.
    The current game is at ``away0`` / ``away1``; gnubg ``getME``: if a side is 1-away now
    (the current game is the Crawford game or post-Crawford), the next game is post-Crawford;
    otherwise, a side reaching 1-away starts the Crawford game.

    >>> mwc_after(2, 2, 1)          # 1-away vs 2-away: the Crawford game comes next
    0.67736
    >>> round(mwc_after(1, 4, -2), 5)   # post-Crawford already: the trailer reaches 2-away
    0.51197
    """
    a0, a1 = _away("away0", away0), _away("away1", away1)
    pts = _away("points", points)
    if a0 <= 0 or a1 <= 0:
        raise ValueError(f"the match is already over at {a0}-away, {a1}-away")
    if pts == 0:
        raise ValueError("a game ends with at least one point to one side")
    n0, n1 = (a0 - pts, a1) if pts > 0 else (a0, a1 + pts)
    if n0 <= 0:
        return 1.0
    if n1 <= 0:
        return 0.0
    post = a0 == 1 or a1 == 1
    if n0 == 1 and n1 == 1:
        post = True
    return equity(n0, n1, crawford=not post and (n0 == 1 or n1 == 1),
                  post_crawford=post, met=met)


# ------------------------------------------------------------------ gnubg XML

_COMMENT = re.compile(r"<!--.*?-->", re.S)
_PROLOG = re.compile(r"<\?.*?\?>|<!DOCTYPE[^>\[]*(\[.*?\])?\s*>", re.S)
_MET_TAG = re.compile(r"</?met\b[^>]*>")


def _parse_xml_text(text):
    """The ``<met>`` element of gnubg MET text, tolerating a misplaced ``</met>``.

    gnubg reads these files with a lenient event parser (GMarkup) and its shipped
    ``Kazaross-XG2.xml`` closes ``</met>`` right after ``<info>``; so the ``met`` tags are
    dropped and the rest is wrapped in one ``<met>`` before a strict XML parse.
    """
    body = _PROLOG.sub("", _COMMENT.sub("", text))
    if not _MET_TAG.search(body):
        raise ValueError("not a gnubg match equity table: no <met> element")
    try:
        return ET.fromstring("<met>" + _MET_TAG.sub("", body) + "</met>")
    except ET.ParseError as e:
        raise ValueError(f"not a valid gnubg MET XML file: {e}") from None


def _rows(table, what):
    kind = table.get("type", "explicit")
    if kind != "explicit":
        raise ValueError(
            f"{what} is of type {kind!r}: only explicit tables are read (gnubg generates "
            f"'zadeh' and 'mec' tables from parameters)")
    rows = []
    for row in table.findall("row"):
        try:
            rows.append([float((me.text or "").strip()) for me in row.findall("me")])
        except ValueError as e:
            raise ValueError(f"{what}: a <me> entry is not a number ({e})") from None
    if not rows:
        raise ValueError(f"{what} has no <row>")
    return rows


def parse_gnubg_xml(text):
    """A :class:`MET` from the text of a gnubg MET XML file (see :func:`load_gnubg_xml`)."""
    root = _parse_xml_text(text)
    info = root.find("info")
    if info is None or info.find("length") is None:
        raise ValueError("the MET has no <info><length>")
    try:
        n = int((info.findtext("length") or "").strip())
    except ValueError:
        raise ValueError(f"<length> must be an integer, got {info.findtext('length')!r}") from None
    if n < 1:
        raise ValueError(f"only explicit tables of positive <length> are read, got {n}")
    pre_el = root.find("pre-crawford-table")
    if pre_el is None:
        raise ValueError("the MET has no <pre-crawford-table>")
    pre = _rows(pre_el, "pre-crawford-table")
    if len(pre) < n or any(len(r) < n for r in pre[:n]):
        raise ValueError(f"pre-crawford-table must have {n} rows of {n} entries (<length>)")
    post = {}
    for el in root.findall("post-crawford-table"):
        who = el.get("player", "both")
        if who not in ("0", "1", "both"):
            raise ValueError(f"post-crawford-table player must be 0, 1 or both, got {who!r}")
        values = _rows(el, "post-crawford-table")[0]
        # gnubg copies only the first length-1 entries (the n-away one cannot occur in an
        # n-point match) and computes the last; a table may therefore stop one short.
        if len(values) < n - 1:
            raise ValueError(f"post-crawford-table must have at least {n - 1} entries")
        if len(values) < n:
            values = _extend_post(values, n)
        for k in ((0, 1) if who == "both" else (int(who),)):
            post[k] = values[:n]
    if set(post) != {0, 1}:
        raise ValueError("the MET needs a post-crawford-table for both players")
    return MET([r[:n] for r in pre[:n]], [post[0], post[1]],
               name=(info.findtext("name") or "").strip(),
               description=(info.findtext("description") or "").strip())


def _extend_post(values, n, gammon_rate=0.25, free_drop2=0.015, free_drop4=0.004):
    """gnubg ``initPostCrawfordMET`` from index len(values) to n-1 (trailer doubles at once)."""
    pc = list(values)
    for i in range(len(pc), n):
        v = (gammon_rate * 0.5 * (pc[i - 4] if i >= 4 else 1.0)
             + (1.0 - gammon_rate) * 0.5 * (pc[i - 2] if i >= 2 else 1.0))
        if i == 1:
            v -= free_drop2
        if i == 3:
            v -= free_drop4
        pc.append(v)
    return pc


def load_gnubg_xml(path):
    """Read a GNU Backgammon match equity table file (``met/*.xml``) into a :class:`MET`.

    Layout (gnubg ``met.dtd``): ``<met>`` with ``<info>`` (``name``, ``description``,
    ``length``), one ``<pre-crawford-table type="explicit">`` of ``length`` ``<row>``s of
    ``<me>`` values (row i = player needing i+1 points) and ``<post-crawford-table>``s with one
    ``<row>`` (``player`` "both", "0" or "1"). Parametric tables (``type="zadeh"`` or
    ``"mec"``) are refused with ``ValueError``, as is anything malformed.
    """
    with open(path, encoding="utf-8") as f:
        return parse_gnubg_xml(f.read())
