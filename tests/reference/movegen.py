"""Slow, obviously-correct reference move generator, written straight from docs/rules.md 3-5.

Nothing here is tuned for speed and nothing imports fastbg: the kernel is compared with this
module, and this module is compared with GNU Backgammon's own generator (tests/test_reference.py).

Boards are the interchange layout of docs/rules.md section 1, handled here as tuples of 26 ints:
``b[1..24]`` points seen from the mover (positive = mover, negative = opponent),
``b[25]`` the mover's bar (>= 0), ``b[0]`` the opponent's bar (<= 0). The mover moves from
high points to low points and bears off below point 1.
"""

BAR = 25
OPP_BAR = 0
HOME_TOP = 6


def as_tuple(board):
    """Any sequence of 26 integers (list, tuple, numpy row) as a tuple of Python ints."""
    # a numpy row's tolist() gives Python ints, as int() of each entry would
    t = tuple(board.tolist()) if hasattr(board, "tolist") else tuple(int(x) for x in board)
    if len(t) != 26:
        raise ValueError(f"a board has 26 entries, got {len(t)}")
    return t


def all_home(b):
    """True when the mover may bear off: nothing on the bar and nothing above his 6-point."""
    return b[BAR] == 0 and all(b[p] <= 0 for p in range(HOME_TOP + 1, 25))


def is_open(b, point):
    """A point is open to the mover unless two or more opposing checkers hold it."""
    return b[point] >= -1


def _land(b, dest):
    """Put one mover checker on ``dest`` (a list), hitting a blot there to the opponent's bar."""
    if b[dest] == -1:
        b[dest] = 0
        b[OPP_BAR] -= 1
    b[dest] += 1


def step(board, die):
    """Every legal single-die move: a list of ``(source, new_board)``.

    ``source`` is the point the checker leaves (25 for the bar). Entering comes first: with a
    checker on the bar the only possible move is to enter it on point ``25 - die``.
    Bearing off (section 5): only with every checker home; a die bears off from its own point,
    or from the highest occupied point when the mover has no checker on a higher point than the die.
    """
    return _step(as_tuple(board), die)


def _step(b, die):
    """:func:`step` of a board already a tuple of 26 ints (the boards this module makes)."""
    out = []
    if b[BAR] > 0:
        dest = BAR - die
        if is_open(b, dest):
            nb = list(b)
            nb[BAR] -= 1
            _land(nb, dest)
            out.append((BAR, tuple(nb)))
        return out
    can_bear_off = all_home(b)
    for src in range(24, 0, -1):
        if b[src] <= 0:
            continue
        dest = src - die
        if dest >= 1:
            if not is_open(b, dest):
                continue
            nb = list(b)
            nb[src] -= 1
            _land(nb, dest)
            out.append((src, tuple(nb)))
        else:
            if not can_bear_off:
                continue
            if dest < 0 and any(b[p] > 0 for p in range(src + 1, HOME_TOP + 1)):
                # Die larger than the point: allowed only from the highest occupied point.
                continue
            nb = list(b)
            nb[src] -= 1
            out.append((src, tuple(nb)))
    return out


def single_die_sources(board, die):
    """The sorted points from which ``die`` can be played now (25 = the bar)."""
    return sorted(src for src, _ in step(board, die))


def _orders(dice):
    d1, d2 = int(dice[0]), int(dice[1])
    if d1 == d2:
        return [(d1,) * 4]
    return [(d1, d2), (d2, d1)]


def _levels(board, order):
    """Positions after playing the first k dice of ``order`` in turn, for k = 0, 1, ...

    Level k is the set of every position that a sequence of k single-die steps (dice taken in
    this order) reaches; the list stops at the last non-empty level.
    """
    levels = [{board}]
    for die in order:
        nxt = set()
        for b in levels[-1]:
            for _, nb in _step(b, die):
                nxt.add(nb)
        if not nxt:
            break
        levels.append(nxt)
    return levels


def check_dice(dice):
    if len(dice) != 2 or any(not 1 <= int(d) <= 6 for d in dice):
        raise ValueError(f"dice must be two numbers 1-6, got {dice!r}")


def legal_moves_ref(board, dice):
    """Sorted list of the distinct positions (26-int tuples) the legal plays of ``dice`` produce.

    Every order of the dice is enumerated (both orders for a non-double, four steps for a
    double). Only plays that use the largest possible number of dice are legal (section 3);
    for a non-double of which only one die can be used, the higher die when either could be.
    When nothing can be played the result is the unchanged board alone.
    """
    check_dice(dice)
    b = as_tuple(board)
    by_order = {order: _levels(b, order) for order in _orders(dice)}
    most = max(len(levels) - 1 for levels in by_order.values())
    if most == 0:
        return [b]
    d1, d2 = int(dice[0]), int(dice[1])
    if d1 != d2 and most == 1:
        # Only one die can be played. If the higher die can, it must be.
        hi, lo = max(d1, d2), min(d1, d2)
        playable_hi = by_order[(hi, lo)]
        if len(playable_hi) > 1:
            return sorted(playable_hi[1])
        return sorted(by_order[(lo, hi)][1])
    results = set()
    for levels in by_order.values():
        if len(levels) - 1 == most:
            results |= levels[most]
    return sorted(results)


def max_dice_used_ref(board, dice):
    """How many dice (0-2, or 0-4 for a double) the legal plays of ``dice`` use."""
    check_dice(dice)
    b = as_tuple(board)
    return max(len(_levels(b, order)) - 1 for order in _orders(dice))


def reachable_by_steps(board, dice):
    """Every position reachable from ``board`` by single-die steps, each using a distinct die
    of the roll (any order, any number of them, the empty sequence included).

    A depth-first search over (position, unused dice as a sorted multiset), deliberately not
    sharing code with :func:`legal_moves_ref` beyond :func:`step`.
    """
    check_dice(dice)
    d1, d2 = int(dice[0]), int(dice[1])
    start = (as_tuple(board), tuple(sorted([d1] * 4 if d1 == d2 else [d1, d2])))
    seen = {start}
    stack = [start]
    while stack:
        b, left = stack.pop()
        for i, die in enumerate(left):
            rest = left[:i] + left[i + 1:]
            for _, nb in _step(b, die):
                state = (nb, rest)
                if state not in seen:
                    seen.add(state)
                    stack.append(state)
    return {b for b, _ in seen}


def is_reachable_by_steps(board, dice, result):
    """True when ``result`` is reachable from ``board`` by single-die steps of the roll."""
    return as_tuple(result) in reachable_by_steps(board, dice)


def checkers(board):
    """(mover's checkers on board and bar, opponent's checkers on board and bar)."""
    b = as_tuple(board)
    mine = sum(x for x in b[1:25] if x > 0) + b[BAR]
    theirs = -sum(x for x in b[1:25] if x < 0) - b[OPP_BAR]
    return mine, theirs


def make_board(mine=None, theirs=None, bar=0, opp_bar=0):
    """Build a board from ``{point: count}`` dicts, both in the MOVER's numbering.

    ``mine`` are the mover's checkers, ``theirs`` the opponent's (given as positive counts);
    ``bar`` and ``opp_bar`` are positive counts on each bar.
    """
    b = [0] * 26
    for p, n in (mine or {}).items():
        b[p] += n
    for p, n in (theirs or {}).items():
        if b[p]:
            raise ValueError(f"point {p} held by both sides")
        b[p] -= n
    b[BAR] = bar
    b[OPP_BAR] = -opp_bar
    return tuple(b)
