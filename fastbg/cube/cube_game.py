"""The doubling cube of one game as a state machine (docs/rules.md sections 6-9).

Flow of a game: optional ``opening_tie()`` calls (automatic doubles, money only), then for
each turn ``start_turn(player)``, optionally ``offer()`` and the answers (``take``,
``drop``, ``beaver``, ``raccoon``), then ``rolled()``; finally ``finish(winner, kind)``
unless a drop ended the game. Every illegal action raises :class:`IllegalCubeAction`
saying why, and leaves the state unchanged. With the usual opening (docs/rules.md section 2:
the first player plays the opening dice) the first player has already rolled on his first
turn: call ``rolled()`` right after ``start_turn``. The caller drives the turn order.

Offers. A double by D from stake v: the taker T may take (stake 2v, T owns the cube), drop
(D wins v) or, with beavers, beaver (T accepts and redoubles at once, keeping the cube:
stake 2v accepted, 4v offered to D). After a beaver D may take (play on at 4v, T owns),
drop (T wins 2v) or, with raccoons, raccoon (D accepts 4v and re-redoubles to 8v; T then
takes, keeping the cube, or drops and pays 4v).
"""
from fastbg.cube.rules import MatchRules, MoneyRules


class IllegalCubeAction(Exception):
    """A cube action the rules do not allow at this point (the message says why)."""


# What the pending decision is, if any.
_NONE, _DOUBLED, _BEAVERED, _RACCOONED = "none", "doubled", "beavered", "raccooned"


class CubeGame:
    """Cube state of one game under ``rules`` (:class:`MoneyRules` or :class:`MatchRules`).

    Read-only state: ``value`` (accepted stake multiplier), ``owner`` (None centred, else
    0 or 1), ``turned`` (a double has been taken), ``over``, ``result`` (points won by
    player 0, signed, once over), ``dropped`` (the game ended by a dropped double),
    ``on_turn`` (the player whose turn it is, or None before the first turn).

    >>> g = CubeGame(MoneyRules())
    >>> g.start_turn(0); g.offer(); g.take()
    >>> g.value, g.owner
    (2, 1)
    >>> g.rolled(); g.start_turn(1); g.rolled(); g.finish(winner=0, kind=2)
    >>> g.result
    4
    """

    def __init__(self, rules=None, crawford_game=False):
        rules = MoneyRules() if rules is None else rules
        if not isinstance(rules, (MoneyRules, MatchRules)):
            raise TypeError(f"rules must be MoneyRules or MatchRules, got {type(rules).__name__}")
        if crawford_game and not rules.is_match:
            raise ValueError("only a match has a Crawford game")
        if crawford_game and not rules.crawford:
            raise ValueError("this match is played without the Crawford rule")
        self.rules = rules
        self.crawford_game = bool(crawford_game)
        self._value = 1
        self._owner = None
        self._turned = False
        self._over = False
        self._result = None
        self._dropped = False
        self._on_turn = None
        self._rolled = False
        self._pending = _NONE
        self._doubler = None
        self._auto_doubles = 0

    # ---- read-only state ----------------------------------------------------------
    value = property(lambda self: self._value)
    owner = property(lambda self: self._owner)
    turned = property(lambda self: self._turned)
    over = property(lambda self: self._over)
    result = property(lambda self: self._result)
    dropped = property(lambda self: self._dropped)
    on_turn = property(lambda self: self._on_turn)

    @property
    def pending(self):
        """The decision waiting for an answer: 'none', 'doubled', 'beavered' or 'raccooned'."""
        return self._pending

    @property
    def to_act(self):
        """The player who must answer a pending offer (None when nothing is pending)."""
        if self._pending in (_DOUBLED, _RACCOONED):
            return 1 - self._doubler
        if self._pending == _BEAVERED:
            return self._doubler
        return None

    def can_double(self, player=None):
        """True when ``player`` (default: the player on turn) may offer a double now."""
        try:
            self._check_offer(player)
        except IllegalCubeAction:
            return False
        return True

    # ---- actions --------------------------------------------------------------------
    def opening_tie(self, six_six=False):
        """A tie on the opening roll: an automatic double (money play, when enabled)."""
        self._check_live()
        r = self.rules
        if r.is_match:
            raise IllegalCubeAction("automatic doubles are never used in match play")
        if not r.auto_doubles:
            raise IllegalCubeAction("automatic doubles are off in these rules")
        if self._on_turn is not None:
            raise IllegalCubeAction("automatic doubles happen only on the opening roll")
        if r.auto_double_limit is not None and self._auto_doubles >= r.auto_double_limit:
            return      # past the cap a tie is just rolled again
        factor = 3 if (six_six and r.triple_on_66) else 2
        if r.max_cube is not None and self._value * factor > r.max_cube:
            return      # the cube limit counts automatic doubles too
        self._value *= factor
        self._auto_doubles += 1

    def start_turn(self, player):
        """``player`` (0 or 1) is on turn and has not rolled yet."""
        self._check_player(player)
        self._check_live()
        self._check_nothing_pending("start a turn")
        self._on_turn = player
        self._rolled = False

    def rolled(self):
        """The player on turn has rolled: no more doubling this turn."""
        self._check_live()
        self._check_nothing_pending("roll")
        if self._on_turn is None:
            raise IllegalCubeAction("no turn has started (call start_turn first)")
        self._rolled = True

    def offer(self, player=None):
        """The player on turn (``player`` if given must be him) doubles."""
        self._check_offer(player)
        self._pending = _DOUBLED
        self._doubler = self._on_turn

    def take(self, player=None):
        """Accept the pending offer (``player``, if given, must be the one to act)."""
        self._check_answer(player, "take")
        if self._pending == _DOUBLED:
            self._value *= 2
            self._owner = 1 - self._doubler
        elif self._pending == _BEAVERED:
            self._value *= 2          # the beaverer keeps the cube
        else:
            self._value *= 2          # raccoon taken: the beaverer keeps the cube
        self._turned = True
        self._pending = _NONE

    def drop(self, player=None):
        """Refuse the pending offer: the game ends at the stake before that offer."""
        self._check_answer(player, "drop")
        loser = self.to_act
        self._end(1 - loser, self._value)
        self._dropped = True
        self._pending = _NONE

    def beaver(self, player=None):
        """The doubled player accepts and at once redoubles, keeping the cube (money only)."""
        self._check_answer(player, "beaver")
        if self.rules.is_match:
            raise IllegalCubeAction("beavers are not allowed in match play")
        if not self.rules.beavers:
            raise IllegalCubeAction("beavers are off in these rules")
        if self._pending != _DOUBLED:
            raise IllegalCubeAction("a beaver answers a double, and there is none to answer")
        self._check_limit(4 * self._value, "beaver")
        self._value *= 2
        self._owner = 1 - self._doubler
        self._turned = True
        self._pending = _BEAVERED

    def raccoon(self, player=None):
        """The original doubler accepts a beaver and at once re-redoubles (money only)."""
        self._check_answer(player, "raccoon")
        if self.rules.is_match:
            raise IllegalCubeAction("raccoons are not allowed in match play")
        if not self.rules.raccoons:
            raise IllegalCubeAction("raccoons are off in these rules")
        if self._pending != _BEAVERED:
            raise IllegalCubeAction("a raccoon answers a beaver, and there is none to answer")
        self._check_limit(4 * self._value, "raccoon")
        self._value *= 2
        self._pending = _RACCOONED

    def finish(self, winner, kind):
        """The game was played out: ``winner`` (0/1) bore off; ``kind`` 1, 2 or 3."""
        self._check_player(winner)
        if kind not in (1, 2, 3):
            raise ValueError(f"kind is 1 (single), 2 (gammon) or 3 (backgammon), got {kind!r}")
        self._check_live()
        self._check_nothing_pending("finish the game")
        multiplier = kind
        if not self.rules.is_match and self.rules.jacoby and not self._turned:
            multiplier = 1        # Jacoby: no gammons until the cube has been turned
        self._end(winner, self._value * multiplier)

    # ---- checks -----------------------------------------------------------------------
    def _end(self, winner, points):
        self._over = True
        self._result = points if winner == 0 else -points

    @staticmethod
    def _check_player(player):
        if player not in (0, 1):
            raise ValueError(f"a player is 0 or 1, got {player!r}")

    def _check_live(self):
        if self._over:
            raise IllegalCubeAction("the game is over")

    def _check_nothing_pending(self, what):
        if self._pending != _NONE:
            raise IllegalCubeAction(f"cannot {what}: player {self.to_act} must first answer "
                                    f"the {self._pending} cube")

    def _check_limit(self, new_value, what):
        m = self.rules.max_cube
        if m is not None and new_value > m:
            raise IllegalCubeAction(f"cannot {what}: the cube would reach {new_value}, past "
                                    f"the limit of {m}")

    def _check_offer(self, player):
        self._check_live()
        self._check_nothing_pending("double")
        if self._on_turn is None:
            raise IllegalCubeAction("no turn has started: a player doubles at the start of his turn")
        if player is not None:
            self._check_player(player)
            if player != self._on_turn:
                raise IllegalCubeAction(f"player {player} cannot double out of turn "
                                        f"(player {self._on_turn} is on turn)")
        if self._rolled:
            raise IllegalCubeAction("cannot double after rolling")
        if self.crawford_game:
            raise IllegalCubeAction("no doubling in the Crawford game")
        if self._owner is not None and self._owner != self._on_turn:
            raise IllegalCubeAction(f"player {self._on_turn} cannot double: player "
                                    f"{self._owner} owns the cube")
        self._check_limit(2 * self._value, "double")

    def _check_answer(self, player, what):
        self._check_live()
        if self._pending == _NONE:
            raise IllegalCubeAction(f"cannot {what}: no double is pending")
        if player is not None:
            self._check_player(player)
            if player != self.to_act:
                raise IllegalCubeAction(f"player {player} cannot {what}: player "
                                        f"{self.to_act} must answer")

    def __repr__(self):
        state = f"over, result {self._result:+d}" if self._over else f"on turn {self._on_turn}"
        return (f"CubeGame(value={self._value}, owner={self._owner}, turned={self._turned}, "
                f"pending={self._pending}, {state})")
