"""Exact game-winning probabilities of small no-contact positions, by dynamic programming.

Written from docs/rules.md sections 1, 3, 5 and 7, for checking rollouts and evaluators. Nothing
here imports fastbg: moves come from :func:`reference.movegen.legal_moves_ref` unless the
caller passes another generator.

Once there is no contact (every checker of the player on roll has passed every opposing
checker) no checker can be hit again, and each turn moves at least one pip (a side that
still has checkers can always move: every point in front of its checkers is free), so the
game is a finite tree of turns. :func:`exact_probabilities` walks it: for each of the 36
rolls it plays EVERY legal result and checks that all of them have the same value. When
two results of one roll differ, the position's value depends on the players' choices and
:class:`PolicyDependent` is raised: a value that comes back is certified to be the value
under every policy, good or bad. Positions are memoized on the key
``(mover's checkers, opponent's checkers)``, each side a tuple of ``(point, count)`` pairs
in that side's own numbering (0 = off the board is implicit).

Probabilities are exact :class:`fractions.Fraction` values in the cumulative convention of
gnubg (docs/rollouts.md section 7): ``(win, win_gammon, win_backgammon, lose_gammon,
lose_backgammon)`` for the player on roll, a gammon including a backgammon.

Scoring (docs/rules.md section 7): the winner bears off all 15 checkers; the loser loses a gammon
when he has borne off none, a backgammon when besides he still has a checker on the bar or
in the winner's home board (the winner's points 1-6, the loser's 19-24).
"""
from fractions import Fraction

from .movegen import BAR, HOME_TOP, OPP_BAR, as_tuple, legal_moves_ref

CHECKERS = 15
# The 21 distinct rolls and their probabilities (a non-double comes up two ways in 36).
ROLLS = tuple(((a, b), Fraction(1 if a == b else 2, 36))
              for a in range(6, 0, -1) for b in range(a, 0, -1))
ZERO = (Fraction(0),) * 5
# Positions a single call may visit before it gives up (the tree grows fast with checkers).
MAX_STATES = 200_000


class PolicyDependent(ValueError):
    """Two legal results of one roll have different values: the position is not certified."""


class TooLarge(ValueError):
    """The position needs more than ``max_states`` positions: too big for the exact DP."""


def is_race(board):
    """True when every mover checker has passed every opposing checker (no contact).

    The mover's rearmost checker is on his highest occupied index (the bar is 25); every
    opposing checker must stand on a higher index (the opponent's bar, index 0, never does).
    """
    b = as_tuple(board)
    mine = [p for p in range(1, BAR + 1) if b[p] > 0]
    theirs = [p for p in range(OPP_BAR, BAR) if b[p] < 0]
    if not mine or not theirs:
        return True
    return max(mine) < min(theirs)


def side_key(board):
    """(mover's checkers, opponent's checkers): ``(point, count)`` pairs, each side in its own
    numbering and in increasing point order, so ``side_key(flip(b))`` is the pair swapped."""
    b = as_tuple(board)
    mine = tuple((p, b[p]) for p in range(1, BAR + 1) if b[p] > 0)
    theirs = tuple((BAR - p, -b[p]) for p in range(BAR - 1, OPP_BAR - 1, -1) if b[p] < 0)
    return mine, theirs


def flip(board):
    """The board seen by the other player: ``new[i] = -old[25 - i]`` (docs/rules.md section 1)."""
    b = as_tuple(board)
    return tuple(-b[BAR - i] for i in range(BAR + 1))


def on_board(board):
    """(mover's checkers on board and bar, opponent's)."""
    b = as_tuple(board)
    return sum(x for x in b if x > 0), -sum(x for x in b if x < 0)


def win_kind(board):
    """Points won by the mover who has just borne off his last checker of ``board``.

    1 single, 2 gammon (the loser has borne off none), 3 backgammon (and a loser's checker
    is on the bar or in the winner's home board, indices 1-6 of the winner's view).
    """
    b = as_tuple(board)
    _, theirs = on_board(b)
    if theirs < CHECKERS:
        return 1
    if b[OPP_BAR] < 0 or any(b[p] < 0 for p in range(1, HOME_TOP + 1)):
        return 3
    return 2


def terminal_value(board):
    """Value for the player who just moved (and has no checker left) of ``board``."""
    kind = win_kind(board)
    one, zero = Fraction(1), Fraction(0)
    return (one, one if kind >= 2 else zero, one if kind == 3 else zero, zero, zero)


def swap(v):
    """The opponent's value seen by the other player: win <-> lose, gammons exchanged."""
    win, wg, wbg, lg, lbg = v
    return (1 - win, lg, lbg, wg, wbg)


class ExactRace:
    """Memoized exact values of no-contact positions; ``moves(board, dice)`` lists results.

    One instance may be reused for many positions: its table then grows and later calls are
    quick. ``certify=False`` skips the check that all results of a roll agree (and takes the
    value of the first result): only for timing or for exploring uncertified positions.
    """

    def __init__(self, moves=None, max_states=MAX_STATES, certify=True):
        self.moves = moves if moves is not None else legal_moves_ref
        self.max_states = max_states
        self.certify = certify
        self.table = {}

    def value(self, board):
        b = as_tuple(board)
        if not is_race(b):
            raise ValueError("the exact DP handles no-contact positions only "
                             "(a mover's checker has an opposing checker in front of it)")
        mine, theirs = on_board(b)
        if mine == 0 or theirs == 0:
            raise ValueError("the game is already over: a side has no checkers left")
        if mine > CHECKERS or theirs > CHECKERS:
            raise ValueError("a side has more than 15 checkers")
        return self._value(b)

    def _value(self, b):
        key = side_key(b)
        hit = self.table.get(key)
        if hit is not None:
            return hit
        if len(self.table) >= self.max_states:
            raise TooLarge(f"more than {self.max_states} positions: too big for the exact DP")
        total = list(ZERO)
        for dice, prob in ROLLS:
            v = None
            first = None
            for r in self.moves(b, dice):
                r = as_tuple(r)
                rv = terminal_value(r) if on_board(r)[0] == 0 else swap(self._value(flip(r)))
                if v is None:
                    v, first = rv, r
                    if not self.certify:
                        break
                elif rv != v:
                    raise PolicyDependent(
                        f"roll {dice[0]}-{dice[1]} from {side_key(b)}: the result "
                        f"{side_key(first)} is worth {_show(v)}, the result {side_key(r)} "
                        f"{_show(rv)}")
            for i in range(5):
                total[i] += prob * v[i]
        value = tuple(total)
        self.table[key] = value
        return value


def _show(v):
    return "(" + ", ".join(str(x) for x in v) + ")"


def exact_probabilities(board, moves=None, max_states=MAX_STATES):
    """Exact ``(win, win_gammon, win_backgammon, lose_gammon, lose_backgammon)`` of ``board``.

    board : 26 integers, the interchange layout (docs/rules.md section 1), player on roll; no
            contact, and small (each side a few checkers, or many that cannot move far
            before the game ends).
    moves : ``moves(board, dice) -> iterable of results`` (default ``legal_moves_ref``;
            ``fastbg.legal_moves`` works too).
    Returns five Fractions for the player on roll (cumulative: a gammon includes a
    backgammon). Raises :class:`PolicyDependent` when the value depends on the players'
    choices somewhere in the game, :class:`TooLarge` past ``max_states`` positions, and
    ``ValueError`` for a position with contact or already over.

    >>> from reference.movegen import make_board
    >>> exact_probabilities(make_board({6: 1}, {24: 1}))[0]
    Fraction(3, 4)
    """
    return ExactRace(moves, max_states).value(board)
