"""Scoring many games: a :class:`Match` to N points and a money :class:`Session`."""
from fastbg.cube.cube_game import CubeGame
from fastbg.cube.rules import MatchRules, MoneyRules


class Match:
    """A match to ``length`` points (docs/rules.md section 9).

    ``new_game()`` gives the :class:`CubeGame` of the next game (the Crawford game has the
    cube disabled); ``record(game)`` adds its result. Points past the length count only as
    a win.

    >>> m = Match(3)
    >>> g = m.new_game(); g.start_turn(0); g.rolled(); g.finish(0, 2)
    >>> m.record(g); m.score, m.is_crawford_game
    ((2, 0), True)
    """

    def __init__(self, length, crawford=True, max_cube=64):
        self.rules = MatchRules(length, crawford=crawford, max_cube=max_cube)
        self._score = [0, 0]
        self._crawford_played = False
        self._next_is_crawford = False
        self._games = []
        self._current = None     # the game handed out by new_game(), not yet recorded

    length = property(lambda self: self.rules.length)
    score = property(lambda self: tuple(self._score))
    games = property(lambda self: list(self._games))

    @property
    def away(self):
        """Points each player still needs: ``(length - score0, length - score1)``."""
        return tuple(max(0, self.length - s) for s in self._score)

    @property
    def over(self):
        return max(self._score) >= self.length

    @property
    def winner(self):
        """0 or 1 once the match is over, else None."""
        if not self.over:
            return None
        return 0 if self._score[0] >= self.length else 1

    @property
    def is_crawford_game(self):
        """True when the next game is the Crawford game (no doubling)."""
        return self._next_is_crawford

    @property
    def post_crawford(self):
        """True when the next game comes after the Crawford game (doubling allowed again)."""
        return self._crawford_played and not self.over

    def new_game(self):
        if self.over:
            raise ValueError("the match is over")
        self._current = CubeGame(self.rules, crawford_game=self._next_is_crawford)
        return self._current

    def record(self, game):
        """Add a finished game's result to the score."""
        if not isinstance(game, CubeGame) or game.rules != self.rules:
            raise ValueError("record takes a CubeGame from this match's new_game()")
        if not game.over:
            raise ValueError("the game is not over yet")
        if self.over:
            raise ValueError("the match is already over")
        if game is not self._current:
            raise ValueError("record takes the game of the latest new_game(), once")
        winner = 0 if game.result > 0 else 1
        self._score[winner] = min(self.length, self._score[winner] + abs(game.result))
        self._games.append(game.result)
        self._current = None
        if game.crawford_game:
            self._crawford_played = True
        self._next_is_crawford = (self.rules.crawford and not self._crawford_played
                                  and not self.over and self.length - 1 in self._score)


class Session:
    """A money session: games under one set of :class:`MoneyRules`, tallied in points.

    >>> s = Session()
    >>> g = s.new_game(); g.start_turn(0); g.offer(); g.drop()
    >>> s.record(g); s.points, s.n_games
    ((1, -1), 1)
    """

    def __init__(self, rules=None):
        self.rules = MoneyRules() if rules is None else rules
        if not isinstance(self.rules, MoneyRules):
            raise TypeError("a Session takes MoneyRules")
        self._results = []
        self._current = None

    def new_game(self):
        self._current = CubeGame(self.rules)
        return self._current

    def record(self, game):
        if not isinstance(game, CubeGame) or game.rules != self.rules:
            raise ValueError("record takes a CubeGame from this session's new_game()")
        if not game.over:
            raise ValueError("the game is not over yet")
        if game is not self._current:
            raise ValueError("record takes the game of the latest new_game(), once")
        self._current = None
        self._results.append(game.result)

    @property
    def n_games(self):
        return len(self._results)

    @property
    def points(self):
        """Net points of (player 0, player 1)."""
        total = sum(self._results)
        return total, -total

    @property
    def results(self):
        """Points won by player 0 in each game, in order."""
        return list(self._results)
