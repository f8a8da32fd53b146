"""Text IDs of positions and match states: gnubg Position IDs and Match IDs, and XGIDs.

* :func:`position_id` / :func:`board_from_position_id`: gnubg Position IDs (below).
* :func:`match_id` / :func:`match_state_from_id`: gnubg Match IDs and :class:`MatchState`.
* :func:`xgid` / :func:`parse_xgid`: eXtreme Gammon XGIDs and :class:`XGIDInfo`.
* :func:`read_position`: a board, a Position ID or an XGID, whichever the caller gave.

All three are exact both ways: decoding and re-encoding a valid ID gives back the same text,
and anything that is not a valid ID raises ``ValueError`` saying what is wrong
(docs/formats.md sections 1-3).

Position ID. The key (gnubg manual, "A technical description of the Position ID";
positionid.c) is a bit string over gnubg's two-sided board ``anBoard[2][25]``, where each side
counts its own points (index 0 = its ace point .. 23 = its 24-point, 24 = its bar). Side 0 is
the player NOT on roll and comes first; side 1, the player on roll, second. For every slot the
key holds one 1-bit per checker and then a 0-bit: 50 zeros and at most 30 ones, padded with
zeros to 80 bits. Bit k goes to byte k // 8, bit k % 8 (least significant first), and the 10
bytes are written in standard base64 without the trailing ``==``.
"""
import base64
import dataclasses
import operator
import re

import numpy as np

from fastbg.position.board import validate
from fastbg.constants import (
    BAR, BOARD_DTYPE, BOARD_SIZE, CHECKERS, DIE_MAX, DIE_MIN, LAST_POINT, OPP_BAR,
)

ID_LENGTH = 14
_KEY_BYTES = 10
_KEY_BITS = 8 * _KEY_BYTES
_SLOTS = LAST_POINT + 1                       # 24 points and the bar, per side
_SEPARATORS = 2 * _SLOTS
_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
# The 14th character carries only the last 2 key bits, followed by 4 zero bits.
_LAST_CHARS = "AQgw"


def _two_sided(b):
    """Interchange board -> gnubg ``anBoard``: (not on roll, on roll), each in its own numbering."""
    opp = [max(-int(b[LAST_POINT - j]), 0) for j in range(LAST_POINT)] + [-int(b[OPP_BAR])]
    mover = [max(int(b[j + 1]), 0) for j in range(LAST_POINT)] + [int(b[BAR])]
    return opp, mover


def position_id(board):
    """The 14-character gnubg Position ID of one interchange board.

    >>> import fastbg
    >>> position_id(fastbg.START)
    '4HPwATDgc/ABMA'
    """
    b = validate(board)
    if b.ndim != 1:
        raise ValueError(f"position_id takes one board, got a batch of shape {b.shape}")
    return position_id_checked(b)


def position_id_checked(b):
    """:func:`position_id` of a board already checked (a valid int8 (26,), as
    :func:`read_position` returns it or a legal move's result), without checking it again."""
    key, k = 0, 0
    for side in _two_sided(b):
        for count in side:
            key |= ((1 << count) - 1) << k    # `count` one-bits, then the zero separator
            k += count + 1
    data = key.to_bytes(_KEY_BYTES, "little")
    return base64.b64encode(data).decode("ascii")[:ID_LENGTH]


def _decode_key(pid):
    """Check the text of a Position ID and return its key as an 80-bit integer."""
    if not isinstance(pid, str):
        raise TypeError(f"a Position ID is a str, got {type(pid).__name__}")
    if len(pid) != ID_LENGTH:
        raise ValueError(f"a Position ID has {ID_LENGTH} characters, got {len(pid)}: {pid!r}")
    bad = sorted(set(pid) - _ALPHABET)
    if bad:
        raise ValueError(f"Position ID {pid!r} has characters outside base64: {''.join(bad)!r}")
    if pid[-1] not in _LAST_CHARS:
        raise ValueError(
            f"Position ID {pid!r} is longer than 80 bits: its last character must be one of "
            f"{_LAST_CHARS!r}")
    return int.from_bytes(base64.b64decode(pid + "=="), "little")


def board_from_position_id(pid):
    """The interchange board (``int8[26]``) of a gnubg Position ID; exact inverse of
    :func:`position_id`.

    Raises ``ValueError`` for text that is not a Position ID of a legal position: wrong length,
    characters outside base64, a key that does not end after its 50 separators, a side with more
    than 15 checkers, or a point held by both sides.
    """
    key = _decode_key(pid)
    sides = [[0] * _SLOTS, [0] * _SLOTS]
    slot = 0
    for k in range(_KEY_BITS):
        if slot == _SEPARATORS:
            if key >> k:
                raise ValueError(f"Position ID {pid!r} has bits after its last point")
            break
        if key >> k & 1:
            sides[slot // _SLOTS][slot % _SLOTS] += 1
        else:
            slot += 1
    else:
        if slot < _SEPARATORS:
            raise ValueError(
                f"Position ID {pid!r} ends after {slot} of its {_SEPARATORS} points and bars")
    opp, mover = sides
    for name, side in (("player not on roll", opp), ("player on roll", mover)):
        if sum(side) > CHECKERS:
            raise ValueError(
                f"Position ID {pid!r}: {name} has {sum(side)} checkers (at most {CHECKERS})")
    board = np.zeros(BOARD_SIZE, dtype=BOARD_DTYPE)
    for j in range(LAST_POINT):
        point = j + 1
        if mover[j] and opp[LAST_POINT - point]:
            raise ValueError(f"Position ID {pid!r}: point {point} is held by both sides")
        board[point] = mover[j] - opp[LAST_POINT - point]
    board[BAR] = mover[LAST_POINT]
    board[OPP_BAR] = -opp[LAST_POINT]
    return board


# ---------------------------------------------------------------- shared field checks

def _as_int(name, value):
    """``value`` as a Python int (numpy integers too); ``TypeError`` for anything else."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an int, got a bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an int, got {type(value).__name__}") from None


def _as_bool(name, value):
    """``value`` as a bool: True/False or the ints 1/0."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if _as_int(name, value) not in (0, 1):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _in_range(name, value, low, high):
    value = _as_int(name, value)
    if not low <= value <= high:
        raise ValueError(f"{name} must be in {low}..{high}, got {value}")
    return value


def _cube_log2(value, limit):
    """log2 of a cube value, which must be a power of two from 1 to ``2**limit``."""
    value = _as_int("cube_value", value)
    if value < 1 or value & (value - 1):
        raise ValueError(f"cube_value must be a power of two, got {value}")
    log2 = value.bit_length() - 1
    if log2 > limit:
        raise ValueError(f"cube_value must be at most 2**{limit} = {1 << limit}, got {value}")
    return log2


def _dice(value):
    """``None`` (not rolled) or a pair of dice 1..6 as a tuple of ints, order kept."""
    if value is None:
        return None
    try:
        d1, d2 = value
    except (TypeError, ValueError):
        raise ValueError(f"dice must be None or a pair (d1, d2), got {value!r}") from None
    pair = (_as_int("a die", d1), _as_int("a die", d2))
    if not all(DIE_MIN <= d <= DIE_MAX for d in pair):
        raise ValueError(
            f"dice must be {DIE_MIN}..{DIE_MAX} each (None when not rolled), got {pair}")
    return pair


def _check_match_scores(scores, match_length, crawford):
    """Scores below the match length; the Crawford flag only in a match, with a player at
    ``match_length - 1`` (docs/rules.md section 9)."""
    if match_length:
        for who, s in scores:
            if s >= match_length:
                raise ValueError(
                    f"{who} score {s} is at or past the match length {match_length}")
        if crawford and match_length - 1 not in [s for _, s in scores]:
            raise ValueError(
                f"a Crawford game needs a player at {match_length - 1} in a "
                f"{match_length}-point match, got scores {tuple(s for _, s in scores)}")
    elif crawford:
        raise ValueError("money play (match_length 0) has no Crawford game")


def _set(obj, **fields):
    """Store normalised field values on a frozen dataclass from ``__post_init__``."""
    for name, value in fields.items():
        object.__setattr__(obj, name, value)


# ---------------------------------------------------------------- gnubg Match ID

MATCH_ID_LENGTH = 12
_MATCH_KEY_BYTES = 9
# Game states, gnubg's ``gamestate`` enum (Match ID bits 8-10).
GAME_NONE, GAME_PLAYING, GAME_OVER, GAME_RESIGNED, GAME_DROPPED = range(5)
MAX_CUBE_LOG2 = 15             # the 4-bit cube field: cube values 1 .. 2**15
MAX_MATCH_LENGTH = 64          # gnubg's MAXSCORE: its decoder refuses longer matches
_MAX_FIELD = (1 << 15) - 1     # the 15-bit score fields (money-play scores)
_CENTRED = 3                   # cube-owner bits of a centred cube
_MATCH_KEY_BITS = 67           # 66 bits, plus bit 66 of the extended ID
# (field, first bit, width), 0-based as in matchid.c's SetBits; values stored LSB first.
_MATCH_FIELDS = (
    ("cube", 0, 4), ("owner", 4, 2), ("move", 6, 1), ("crawford", 7, 1), ("state", 8, 3),
    ("turn", 11, 1), ("doubled", 12, 1), ("resigned", 13, 2), ("die1", 15, 3),
    ("die2", 18, 3), ("length", 21, 15), ("score0", 36, 15), ("score1", 51, 15),
    ("no_jacoby", 66, 1),
)


@dataclasses.dataclass(frozen=True)
class MatchState:
    """What a gnubg Match ID holds (gnubg's ``matchstate`` fields of the same meaning).

    Players are gnubg's player 0 and player 1 (absolute, not "on roll"/"opponent").

    * ``cube_value``: 1, 2, 4, ... up to ``2**15``.
    * ``cube_owner``: ``None`` for a centred cube, else the owning player 0 or 1.
    * ``player_on_roll``: gnubg's ``fMove``, the player whose turn it is (who rolled or will
      roll; the doubler while a double is pending).
    * ``crawford``: this game is the Crawford game (match play only; a player must be at
      ``match_length - 1``).
    * ``game_state``: ``GAME_NONE`` 0, ``GAME_PLAYING`` 1, ``GAME_OVER`` 2, ``GAME_RESIGNED``
      3, ``GAME_DROPPED`` 4 (ended by a dropped cube).
    * ``turn``: gnubg's ``fTurn``, the player who must act now; differs from
      ``player_on_roll`` while a double or resignation awaits an answer. ``None`` (the default
      when constructing) means the same as ``player_on_roll`` and is stored as that player.
    * ``double_offered``: a double awaits an answer.
    * ``resignation``: 0 none, 1 single, 2 gammon, 3 backgammon offered (by ``1 - turn``).
    * ``dice``: ``None`` when not rolled, else ``(d1, d2)`` in the order of the ID's two die
      fields. Encoding writes them in the order given and decoding keeps the order, so both
      directions are exact. gnubg itself writes the LARGER die first; pass ``(max, min)`` for
      the ID gnubg would show.
    * ``match_length``: 0 for money play, else 1..64 (gnubg's MAXSCORE).
    * ``score``: ``(player 0, player 1)``; in a match each below ``match_length``
      (docs/rules.md section 10), in money play 0..32767.
    * ``jacoby``: bit 66 of gnubg's *extended* Match ID holds "not Jacoby". A plain ID leaves
      it 0, the same bits as "extended, Jacoby on", so a 0 bit cannot say which: it decodes to
      ``None`` (not stated) and a 1 bit to ``False`` (extended ID, Jacoby off). Encoding writes
      1 only for ``False``; ``None`` and ``True`` write 0, so ``True`` decodes back as ``None``.

    Fields are checked and normalised (numpy ints to int, dice to a tuple) on construction;
    a bad value raises ``ValueError`` (``TypeError`` for a non-integer).
    """

    cube_value: int = 1
    cube_owner: int | None = None
    player_on_roll: int = 0
    crawford: bool = False
    game_state: int = GAME_PLAYING
    turn: int | None = None
    double_offered: bool = False
    resignation: int = 0
    dice: tuple[int, int] | None = None
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool | None = None

    def __post_init__(self):
        _cube_log2(self.cube_value, MAX_CUBE_LOG2)
        owner = self.cube_owner
        if owner is not None:
            owner = _as_int("cube_owner", owner)
            if owner not in (0, 1):
                raise ValueError(f"cube_owner must be None (centred), 0 or 1, got {owner}")
        move = _in_range("player_on_roll", self.player_on_roll, 0, 1)
        turn = move if self.turn is None else _in_range("turn", self.turn, 0, 1)
        length = _in_range("match_length", self.match_length, 0, MAX_MATCH_LENGTH)
        try:
            s0, s1 = self.score
        except (TypeError, ValueError):
            raise ValueError(f"score must be a pair (player 0, player 1), got "
                             f"{self.score!r}") from None
        score = (_in_range("score", s0, 0, _MAX_FIELD), _in_range("score", s1, 0, _MAX_FIELD))
        crawford = _as_bool("crawford", self.crawford)
        _check_match_scores((("player 0", score[0]), ("player 1", score[1])), length, crawford)
        _set(self,
             cube_value=_as_int("cube_value", self.cube_value), cube_owner=owner,
             player_on_roll=move, crawford=crawford,
             game_state=_in_range("game_state", self.game_state, GAME_NONE, GAME_DROPPED),
             turn=turn, double_offered=_as_bool("double_offered", self.double_offered),
             resignation=_in_range("resignation", self.resignation, 0, 3),
             dice=_dice(self.dice), match_length=length, score=score,
             jacoby=None if self.jacoby is None else _as_bool("jacoby", self.jacoby))


def match_id(state):
    """The 12-character gnubg Match ID of a :class:`MatchState` (see its field notes).

    >>> match_id(MatchState(player_on_roll=1, game_state=GAME_PLAYING))
    'cAkAAAAAAAAA'
    >>> match_id(MatchState(cube_value=2, cube_owner=0, player_on_roll=1, dice=(5, 2),
    ...                     match_length=9, score=(2, 4)))
    'QYkqASAAIAAA'
    """
    if not isinstance(state, MatchState):
        raise TypeError(f"match_id takes a MatchState, got {type(state).__name__}")
    d1, d2 = state.dice or (0, 0)
    values = {
        "cube": state.cube_value.bit_length() - 1,
        "owner": _CENTRED if state.cube_owner is None else state.cube_owner,
        "move": state.player_on_roll, "crawford": int(state.crawford),
        "state": state.game_state, "turn": state.turn, "doubled": int(state.double_offered),
        "resigned": state.resignation, "die1": d1, "die2": d2, "length": state.match_length,
        "score0": state.score[0], "score1": state.score[1],
        "no_jacoby": int(state.jacoby is False),
    }
    key = 0
    for name, first, _ in _MATCH_FIELDS:
        key |= values[name] << first
    return base64.b64encode(key.to_bytes(_MATCH_KEY_BYTES, "little")).decode("ascii")


def match_state_from_id(mid):
    """The :class:`MatchState` of a gnubg Match ID; exact inverse of :func:`match_id`.

    Raises ``ValueError`` for text that is not the Match ID of a valid state: wrong length,
    characters outside base64, bits set past bit 66, cube-owner bits 2, a game state above 4,
    a die above 6 or only one die rolled, a match longer than 64 points, a score at or past
    the match length, or a Crawford flag in money play or with nobody at match point.

    >>> s = match_state_from_id("MIEFAAAAAAAA")
    >>> s.dice, s.player_on_roll, s.cube_owner, s.match_length
    ((3, 1), 0, None, 0)
    """
    if not isinstance(mid, str):
        raise TypeError(f"a Match ID is a str, got {type(mid).__name__}")
    if len(mid) != MATCH_ID_LENGTH:
        raise ValueError(
            f"a Match ID has {MATCH_ID_LENGTH} characters, got {len(mid)}: {mid!r}")
    bad = sorted(set(mid) - _ALPHABET)
    if bad:
        raise ValueError(f"Match ID {mid!r} has characters outside base64: {''.join(bad)!r}")
    key = int.from_bytes(base64.b64decode(mid), "little")
    if key >> _MATCH_KEY_BITS:
        raise ValueError(f"Match ID {mid!r} has bits set past bit {_MATCH_KEY_BITS - 1}")
    f = {name: key >> first & ((1 << width) - 1) for name, first, width in _MATCH_FIELDS}
    try:
        if f["owner"] not in (0, 1, _CENTRED):
            raise ValueError(f"cube-owner bits are {f['owner']}: neither a player (0, 1) "
                             f"nor centred ({_CENTRED})")
        dice = (f["die1"], f["die2"])
        if 0 in dice and dice != (0, 0):
            raise ValueError(f"dice must be both rolled or both 0, got {dice}")
        return MatchState(
            cube_value=1 << f["cube"],
            cube_owner=None if f["owner"] == _CENTRED else f["owner"],
            player_on_roll=f["move"], crawford=bool(f["crawford"]), game_state=f["state"],
            turn=f["turn"], double_offered=bool(f["doubled"]), resignation=f["resigned"],
            dice=None if dice == (0, 0) else dice, match_length=f["length"],
            score=(f["score0"], f["score1"]), jacoby=False if f["no_jacoby"] else None)
    except ValueError as err:
        raise ValueError(f"Match ID {mid!r}: {err}") from None


# ---------------------------------------------------------------- XGID (eXtreme Gammon)

XGID_PREFIX = "XGID="
BOTTOM, TOP = "bottom", "top"
ON_ROLL, OPPONENT = "on_roll", "opponent"
_XGID_FIELDS = 10
_XGID_INT = re.compile(r"-?(0|[1-9][0-9]*)\Z")   # canonical integers only: exact round trips
_XGID_NOT_ROLLED = "00"
_XGID_DOUBLE, _XGID_BEAVER, _XGID_RACCOON = "D", "B", "R"
_XGID_CUBEPOS = {1: BOTTOM, 0: None, -1: TOP}
_XGID_TURN = {1: BOTTOM, -1: TOP}


@dataclasses.dataclass(frozen=True)
class XGIDInfo:
    """Everything in an XGID but the checkers (docs/formats.md section 3).

    XGID names the players by where XG draws them, ``"bottom"`` and ``"top"``; so do these
    fields. The board that goes with them (:func:`parse_xgid`, :func:`xgid`) is seen from the
    player ``turn``.

    * ``cube_value``: 1, 2, 4, ... at most ``2**max_cube`` (the XGID holds its log2).
    * ``cube_owner``: ``None`` centred, ``"bottom"`` or ``"top"``;
      :attr:`cube_owner_relative` gives it as ``"on_roll"`` / ``"opponent"`` / ``None``.
    * ``turn``: ``"bottom"`` or ``"top"``, the player whose turn it is (who rolled, or who is
      to roll or double; while a double is offered, the doubler: the other player answers).
    * ``dice``: ``None`` when not rolled (``00``), else ``(d1, d2)`` in the XGID's order.
    * ``double_offered`` (``D``), ``beavered`` (``B``), ``raccooned`` (``R``): the cube state
      in place of dice; at most one, only with ``dice`` None; beavers and raccoons need money
      play with the beaver rule.
    * ``score_bottom``, ``score_top``: scores, in a match each below ``match_length``.
    * ``match_length``: 0 for money play.
    * ``crawford``: match play, this is the Crawford game (rules field 1; a player must be at
      ``match_length - 1``).
    * ``jacoby``, ``beaver``: money play, the Jacoby and beaver rules (rules field bits 0, 1).
    * ``max_cube``: log2 of the cube limit (XG's default 10, i.e. 1024), 0..15.
    """

    cube_value: int = 1
    cube_owner: str | None = None
    turn: str = BOTTOM
    dice: tuple[int, int] | None = None
    double_offered: bool = False
    beavered: bool = False
    raccooned: bool = False
    score_bottom: int = 0
    score_top: int = 0
    match_length: int = 0
    crawford: bool = False
    jacoby: bool = False
    beaver: bool = False
    max_cube: int = 10

    def __post_init__(self):
        if self.cube_owner not in (None, BOTTOM, TOP):
            raise ValueError(
                f"cube_owner must be None, {BOTTOM!r} or {TOP!r}, got {self.cube_owner!r}")
        if self.turn not in (BOTTOM, TOP):
            raise ValueError(f"turn must be {BOTTOM!r} or {TOP!r}, got {self.turn!r}")
        max_cube = _in_range("max_cube", self.max_cube, 0, MAX_CUBE_LOG2)
        _cube_log2(self.cube_value, max_cube)
        dice = _dice(self.dice)
        flags = {name: _as_bool(name, getattr(self, name))
                 for name in ("double_offered", "beavered", "raccooned", "crawford", "jacoby",
                              "beaver")}
        cube_actions = [name for name in ("double_offered", "beavered", "raccooned")
                        if flags[name]]
        if len(cube_actions) > 1:
            raise ValueError(f"at most one of double_offered, beavered, raccooned, got "
                             f"{' and '.join(cube_actions)}")
        if cube_actions and dice is not None:
            raise ValueError(f"{cube_actions[0]} happens before the roll: dice must be None, "
                             f"got {dice}")
        length = _as_int("match_length", self.match_length)
        if length < 0:
            raise ValueError(f"match_length must be >= 0 (0 = money), got {length}")
        scores = (_as_int("score_bottom", self.score_bottom),
                  _as_int("score_top", self.score_top))
        for who, s in zip((BOTTOM, TOP), scores):
            if s < 0:
                raise ValueError(f"score_{who} must be >= 0, got {s}")
        _check_match_scores(tuple(zip(("bottom", "top"), scores)), length, flags["crawford"])
        if length:
            rules = [name for name in ("jacoby", "beaver") if flags[name]]
            if rules:
                raise ValueError(f"match play has no {rules[0]} rule (money play only)")
        if (flags["beavered"] or flags["raccooned"]) and not (length == 0 and flags["beaver"]):
            raise ValueError(f"{cube_actions[0]} needs money play with the beaver rule")
        _set(self, cube_value=_as_int("cube_value", self.cube_value), dice=dice,
             score_bottom=scores[0], score_top=scores[1], match_length=length,
             max_cube=max_cube, **flags)

    @property
    def cube_owner_relative(self):
        """The cube owner seen from the player ``turn``: ``"on_roll"``, ``"opponent"``, or
        ``None`` for a centred cube."""
        if self.cube_owner is None:
            return None
        return ON_ROLL if self.cube_owner == self.turn else OPPONENT


def _xgid_char(count):
    """One XGID position character: ``-``, ``A``.. for bottom, ``a``.. for top checkers."""
    if count == 0:
        return "-"
    return chr((ord("A") if count > 0 else ord("a")) + abs(count) - 1)


def xgid(board, info=None, **fields):
    """The XGID of an interchange board and an :class:`XGIDInfo`, with the ``XGID=`` prefix.

    ``board`` is seen from the player ``info.turn`` (the player on roll). The XGID draws the
    position from the BOTTOM player's view, index for index the same layout as the
    interchange board (char 0 = top's bar, chars 1..24 = bottom's points 1..24, char 25 =
    bottom's bar; upper case = bottom's checkers, lower case = top's), so the board is flipped
    (``new[i] = -old[25 - i]``) when ``turn`` is ``"top"``. Keyword ``fields`` replace fields
    of ``info`` (default ``XGIDInfo()``).

    >>> import fastbg
    >>> xgid(fastbg.START)
    'XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10'
    >>> xgid(fastbg.START, dice=(3, 1), match_length=7, score_bottom=2)
    'XGID=-b----E-C---eE---c-e----B-:0:0:1:31:2:0:0:7:10'
    """
    info = XGIDInfo() if info is None else info
    if not isinstance(info, XGIDInfo):
        raise TypeError(f"xgid takes an XGIDInfo, got {type(info).__name__}")
    if fields:
        info = dataclasses.replace(info, **fields)
    b = validate(board)
    if b.ndim != 1:
        raise ValueError(f"xgid takes one board, got a batch of shape {b.shape}")
    bottom_view = b if info.turn == BOTTOM else -b[::-1]
    if info.double_offered:
        dice = _XGID_DOUBLE
    elif info.beavered:
        dice = _XGID_BEAVER
    elif info.raccooned:
        dice = _XGID_RACCOON
    else:
        dice = _XGID_NOT_ROLLED if info.dice is None else "%d%d" % info.dice
    if info.match_length:
        rules = int(info.crawford)
    else:
        rules = int(info.jacoby) | int(info.beaver) << 1
    cubepos = {BOTTOM: 1, None: 0, TOP: -1}[info.cube_owner]
    fields = [
        "".join(_xgid_char(int(c)) for c in bottom_view),
        info.cube_value.bit_length() - 1, cubepos, 1 if info.turn == BOTTOM else -1, dice,
        info.score_bottom, info.score_top, rules, info.match_length, info.max_cube,
    ]
    return XGID_PREFIX + ":".join(str(f) for f in fields)


def _xgid_board(pos, text):
    """The bottom player's interchange board of a 26-character XGID position."""
    if len(pos) != BOARD_SIZE:
        raise ValueError(f"XGID {text!r}: the position has {BOARD_SIZE} characters, got "
                         f"{len(pos)}: {pos!r}")
    board = np.zeros(BOARD_SIZE, dtype=BOARD_DTYPE)
    for i, c in enumerate(pos):
        if c == "-":
            continue
        if "A" <= c <= "P":
            n = ord(c) - ord("A") + 1
        elif "a" <= c <= "p":
            n = -(ord(c) - ord("a") + 1)
        else:
            raise ValueError(f"XGID {text!r}: position character {i} is {c!r} (not -, A-P "
                             f"or a-p)")
        if i == OPP_BAR and n > 0 or i == BAR and n < 0:
            owner, case = ("top", "lower") if i == OPP_BAR else ("bottom", "upper")
            raise ValueError(f"XGID {text!r}: position character {i} is the {owner} "
                             f"player's bar and must be {case} case or -, got {c!r}")
        board[i] = n
    for who, count in ((BOTTOM, board.clip(0).sum()), (TOP, (-board).clip(0).sum())):
        if count > CHECKERS:
            raise ValueError(f"XGID {text!r}: the {who} player has {count} checkers "
                             f"(at most {CHECKERS})")
    return board


def _xgid_int(name, field, text):
    if not _XGID_INT.match(field):
        raise ValueError(f"XGID {text!r}: {name} must be an integer, got {field!r}")
    return int(field)


def parse_xgid(text):
    """``(board, info)`` of an XGID; exact inverse of :func:`xgid`.

    ``board`` is the interchange board (``int8[26]``) seen from the player on roll
    (``info.turn``): the XGID's bottom-view position, flipped when the top player is on roll.
    ``info`` is an :class:`XGIDInfo`. The ``XGID=`` prefix is optional (other prefixes, which
    gnubg's importer skips up to the last ``=``, are refused) and surrounding whitespace is
    ignored.

    Raises ``ValueError`` for text that is not an XGID of a valid state: not 10 fields, a
    position that is not 26 characters of ``-``, ``A-P``, ``a-p`` (with the right case on
    each bar), a side with more than 15 checkers, a cube, cube position, turn, dice, rules or
    score field out of range (a die outside 1-6, a score at or past the match length, ...).

    >>> import fastbg
    >>> board, info = parse_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
    >>> bool((board == fastbg.START).all()), info.turn, info.dice
    (True, 'bottom', None)
    """
    if not isinstance(text, str):
        raise TypeError(f"an XGID is a str, got {type(text).__name__}")
    body = text.strip()
    if body.startswith(XGID_PREFIX):
        body = body[len(XGID_PREFIX):]
    # gnubg splits nine fields off from the right and takes the rest as the position; no
    # field may hold a ':', so splitting at every ':' is the same on valid text and can say
    # how many fields there were.
    fields = body.split(":")
    if len(fields) != _XGID_FIELDS:
        raise ValueError(f"an XGID has {_XGID_FIELDS} fields separated by ':', got "
                         f"{len(fields)}: {text!r}")
    pos, cube, cubepos, turn, dice, s_bottom, s_top, rules, length, max_cube = fields
    board = _xgid_board(pos, text)
    cube = _xgid_int("the cube field", cube, text)
    cubepos = _xgid_int("the cube position", cubepos, text)
    turn = _xgid_int("the turn", turn, text)
    rules = _xgid_int("the rules field", rules, text)
    length = _xgid_int("the match length", length, text)
    if cubepos not in _XGID_CUBEPOS:
        raise ValueError(f"XGID {text!r}: the cube position must be 1, 0 or -1, got {cubepos}")
    if turn not in _XGID_TURN:
        raise ValueError(f"XGID {text!r}: the turn must be 1 or -1, got {turn}")
    if not 0 <= cube <= MAX_CUBE_LOG2:
        raise ValueError(f"XGID {text!r}: the cube field (log2 of the cube) must be in "
                         f"0..{MAX_CUBE_LOG2}, got {cube}")
    if not 0 <= rules <= (1 if length else 3):
        raise ValueError(f"XGID {text!r}: the rules field must be "
                         f"{'0 or 1 in match play' if length else '0..3 in money play'}, "
                         f"got {rules}")
    cube_state = {_XGID_DOUBLE: "double_offered", _XGID_BEAVER: "beavered",
                  _XGID_RACCOON: "raccooned"}.get(dice)
    if cube_state or dice == _XGID_NOT_ROLLED:
        pair = None
    elif re.fullmatch(r"[1-6][1-6]", dice):
        pair = (int(dice[0]), int(dice[1]))
    else:
        raise ValueError(f"XGID {text!r}: the dice field must be 00, D, B, R or two dice "
                         f"1-6, got {dice!r}")
    try:
        info = XGIDInfo(
            cube_value=1 << cube, cube_owner=_XGID_CUBEPOS[cubepos], turn=_XGID_TURN[turn],
            dice=pair, score_bottom=_xgid_int("the bottom score", s_bottom, text),
            score_top=_xgid_int("the top score", s_top, text), match_length=length,
            crawford=bool(length and rules), jacoby=bool(not length and rules & 1),
            beaver=bool(not length and rules & 2),
            max_cube=_xgid_int("the max cube", max_cube, text),
            **({cube_state: True} if cube_state else {}))
    except ValueError as err:
        if str(err).startswith("XGID "):
            raise
        raise ValueError(f"XGID {text!r}: {err}") from None
    if info.turn == TOP:
        board = np.ascontiguousarray(-board[::-1])
    return board, info


def read_position(position, what="this function"):
    """``(board, info)`` from whatever names one position: a board ``(26,)`` (player on
    roll), a gnubg Position ID or an XGID (with or without its ``XGID=`` prefix).

    ``board`` is a new int8 array seen from the player on roll; ``info`` is the XGID's
    :class:`XGIDInfo`, or None for a board or a Position ID. Text with a ``:`` or the
    ``XGID=`` prefix is read as an XGID, any other text as a Position ID. ``what`` names the
    caller in the message for a batch of boards. ``ValueError`` for anything invalid.

    >>> board, info = read_position("4HPwATDgc/ABMA")
    >>> board.tolist() == validate(board).tolist(), info is None
    (True, True)
    """
    if isinstance(position, str):
        text = position.strip()
        if text.upper().startswith(XGID_PREFIX) or ":" in text:
            return parse_xgid(text)
        return board_from_position_id(text), None
    b = validate(position)
    if b.ndim != 1:
        raise ValueError(f"{what} takes one position of shape ({BOARD_SIZE},), got a batch "
                         f"of shape {b.shape}")
    return b.copy(), None
