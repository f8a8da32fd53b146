"""Slow, obviously-correct model of the doubling cube and match scoring (docs/rules.md sections 6-9).

Written from the rule book, not from ``fastbg``: nothing here imports it. A game is an
immutable :class:`CubeState`; :func:`step` applies one action and returns the next state, or
raises :class:`Illegal` carrying *every* reason the rule book gives against the action (so
a test can accept whichever of them the engine reports first).

Conventions shared with the engine's public API (they are the API, not the rules):

* ``value`` is the accepted stake. While an offer is pending it is the stake before that
  offer, which is exactly what a drop pays (section 6, "the stake as it stood before the
  double"; section 8, "drop pays 2x" after a beaver).
* A beaver accepts the double (stake 2v, the beaverer owns the cube, the cube is turned)
  and offers 4v to the doubler; a raccoon accepts that (stake 4v) and offers 8v to the
  beaverer, who keeps the cube either way.
* ``result`` is the points won by player 0 (negative when player 1 wins).

Actions are tuples: ``("opening_tie", six_six)``, ``("start_turn", p)``, ``("rolled",)``,
``("offer", p=None)``, ``("take"|"drop"|"beaver"|"raccoon", p=None)``, ``("finish", w, kind)``.
"""
from dataclasses import dataclass, replace

# Reasons an action is illegal (section numbers of docs/rules.md in brackets).
OVER = "the game is over"
NO_TURN = "no turn has started"
PENDING = "a double waits for an answer"
OUT_OF_TURN = "out of turn"                    # [6] only at the start of his own turn
ROLLED = "after rolling"                       # [6] before rolling
CRAWFORD = "Crawford game"                     # [9]
NOT_OWNER = "the other player owns the cube"   # [6] only the owner redoubles
LIMIT = "past max_cube"                        # [6]
NOTHING_TO_ANSWER = "no double is pending"
WRONG_ANSWERER = "the other player must answer"
MATCH_PLAY = "not in match play"               # [9] no beavers, raccoons, automatic doubles
BEAVERS_OFF = "beavers are off"                # [8]
RACCOONS_OFF = "raccoons are off"              # [8]
NOT_A_DOUBLE = "a beaver answers a double"     # [8]
NOT_A_BEAVER = "a raccoon answers a beaver"    # [8]
AUTO_OFF = "automatic doubles are off"         # [8]
NOT_OPENING = "not the opening roll"           # [8] ties happen on the opening roll only


class Illegal(Exception):
    """The rule book forbids the action; ``reasons`` is the set of every reason that applies."""

    def __init__(self, reasons):
        super().__init__(", ".join(sorted(reasons)))
        self.reasons = frozenset(reasons)


@dataclass(frozen=True)
class Rules:
    """Plain description of a rule set: ``match`` (bool) plus the money options."""
    match: bool = False
    jacoby: bool = True
    beavers: bool = False
    raccoons: bool = False
    auto_doubles: bool = False
    auto_double_limit: object = 1
    triple_on_66: bool = False
    max_cube: object = 64
    crawford_game: bool = False


@dataclass(frozen=True)
class CubeState:
    value: int = 1
    owner: object = None          # None: centred
    turned: bool = False          # a double (or beaver) has been accepted
    over: bool = False
    result: object = None
    dropped: bool = False
    on_turn: object = None
    rolled: bool = False
    stage: str = "none"           # "none" | "doubled" | "beavered" | "raccooned"
    answerer: object = None       # who must answer the pending offer
    autos: int = 0                # automatic doubles applied


def _fits(rules, stake):
    return rules.max_cube is None or stake <= rules.max_cube


def _answer_reasons(s, who):
    if s.over:
        return {OVER}
    if s.stage == "none":
        return {NOTHING_TO_ANSWER}
    if who is not None and who != s.answerer:
        return {WRONG_ANSWERER}
    return set()


def step(rules, s, action):
    """The state after ``action``, or :class:`Illegal` with every reason against it."""
    name, args = action[0], action[1:]
    why = set()

    if name == "opening_tie":
        (six_six,) = args
        if s.over:
            why.add(OVER)
        if rules.match:
            why.add(MATCH_PLAY)
        elif not rules.auto_doubles:
            why.add(AUTO_OFF)
        if s.on_turn is not None:
            why.add(NOT_OPENING)
        if why:
            raise Illegal(why)
        factor = 3 if (six_six and rules.triple_on_66) else 2
        capped = rules.auto_double_limit is not None and s.autos >= rules.auto_double_limit
        if capped or not _fits(rules, s.value * factor):
            return s                         # the tie is rolled again; the stake stays
        return replace(s, value=s.value * factor, autos=s.autos + 1)

    if name == "start_turn":
        (p,) = args
        if s.over:
            why.add(OVER)
        if s.stage != "none":
            why.add(PENDING)
        if why:
            raise Illegal(why)
        return replace(s, on_turn=p, rolled=False)

    if name == "rolled":
        if s.over:
            why.add(OVER)
        if s.stage != "none":
            why.add(PENDING)
        if s.on_turn is None:
            why.add(NO_TURN)
        if why:
            raise Illegal(why)
        return replace(s, rolled=True)

    if name == "offer":
        who = args[0] if args else None
        if s.over:
            raise Illegal({OVER})
        if s.stage != "none":
            why.add(PENDING)
        if s.on_turn is None:
            why.add(NO_TURN)
            raise Illegal(why)
        doubler = s.on_turn if who is None else who
        if doubler != s.on_turn:
            why.add(OUT_OF_TURN)
        if s.rolled:
            why.add(ROLLED)
        if rules.crawford_game:
            why.add(CRAWFORD)
        if s.owner is not None and s.owner != doubler:
            why.add(NOT_OWNER)
        if not _fits(rules, 2 * s.value):
            why.add(LIMIT)
        if why:
            raise Illegal(why)
        return replace(s, stage="doubled", answerer=1 - doubler)

    if name in ("take", "drop"):
        who = args[0] if args else None
        why = _answer_reasons(s, who)
        if why:
            raise Illegal(why)
        if name == "drop":
            winner = 1 - s.answerer
            return replace(s, over=True, dropped=True, stage="none", answerer=None,
                           result=s.value if winner == 0 else -s.value)
        if s.stage == "doubled":             # the taker owns the cube
            return replace(s, value=2 * s.value, owner=s.answerer, turned=True,
                           stage="none", answerer=None)
        # a beaver or raccoon taken: the beaverer (already the owner) keeps the cube
        return replace(s, value=2 * s.value, turned=True, stage="none", answerer=None)

    if name == "beaver":
        who = args[0] if args else None
        why = _answer_reasons(s, who)
        if rules.match:
            why.add(MATCH_PLAY)
        elif not rules.beavers:
            why.add(BEAVERS_OFF)
        if not s.over and s.stage not in ("none", "doubled"):
            why.add(NOT_A_DOUBLE)
        if s.stage == "doubled" and not _fits(rules, 4 * s.value):
            why.add(LIMIT)
        if why:
            raise Illegal(why)
        doubler = 1 - s.answerer
        return replace(s, value=2 * s.value, owner=s.answerer, turned=True,
                       stage="beavered", answerer=doubler)

    if name == "raccoon":
        who = args[0] if args else None
        why = _answer_reasons(s, who)
        if rules.match:
            why.add(MATCH_PLAY)
        elif not rules.raccoons:
            why.add(RACCOONS_OFF)
        if not s.over and s.stage not in ("none", "beavered"):
            why.add(NOT_A_BEAVER)
        if s.stage == "beavered" and not _fits(rules, 4 * s.value):
            why.add(LIMIT)
        if why:
            raise Illegal(why)
        return replace(s, value=2 * s.value, turned=True, stage="raccooned",
                       answerer=1 - s.answerer)

    if name == "finish":
        winner, kind = args
        if s.over:
            why.add(OVER)
        if s.stage != "none":
            why.add(PENDING)
        if why:
            raise Illegal(why)
        jacoby = not rules.match and rules.jacoby and not s.turned
        points = s.value * (1 if jacoby else kind)
        return replace(s, over=True, result=points if winner == 0 else -points)

    raise ValueError(f"unknown action {action!r}")


def run(rules, actions, state=None):
    """Apply ``actions`` in order (each must be legal); returns the final state."""
    s = CubeState() if state is None else state
    for a in actions:
        s = step(rules, s, a)
    return s


# ---- match play (section 9) ----------------------------------------------------------------

def match_states(length, crawford, results):
    """Replay a match to ``length`` from the signed game results (points won by player 0).

    Returns one dict per moment *before* each game and after the last: ``score`` (capped at
    ``length``: points beyond N do not matter), ``over``, ``winner``, ``crawford`` (this game
    is the Crawford game) and ``post_crawford`` (a later game of a Crawford match).
    """
    raw = [0, 0]
    reached = None                      # index of the game after which someone first had N-1
    out = []

    def snapshot(k):
        score = tuple(min(length, x) for x in raw)
        over = length in score
        winner = score.index(length) if over else None
        craw = crawford and not over and reached is not None and k == reached + 1
        post = crawford and not over and reached is not None and k > reached + 1
        return dict(score=score, away=tuple(length - x for x in score), over=over,
                    winner=winner, crawford=craw, post_crawford=post)

    for k, r in enumerate(results):
        out.append(snapshot(k))
        raw[0 if r > 0 else 1] += abs(r)
        if reached is None and max(raw) < length and length - 1 in raw:
            reached = k
    out.append(snapshot(len(results)))
    return out
