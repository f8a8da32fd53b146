"""Rule sets for scoring: money play (RULES.md section 8) and match play (section 9)."""
from dataclasses import dataclass


def _check_max_cube(max_cube):
    if max_cube is None:
        return
    if isinstance(max_cube, bool) or not isinstance(max_cube, int) or max_cube < 1:
        raise ValueError(f"max_cube must be a positive integer or None (no limit), got {max_cube!r}")


def _check_flag(name, value):
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, got {value!r}")


@dataclass(frozen=True)
class MoneyRules:
    """Money-game options (RULES.md sections 6-8).

    jacoby            : gammons count as singles until the cube has been turned (default on).
    beavers           : a doubled player may redouble at once, keeping the cube (default off).
    raccoons          : the doubler may then re-redouble at once (needs beavers).
    auto_doubles      : each tie on the opening roll doubles the stake, cube stays centred.
    auto_double_limit : at most this many automatic doubles a game (None = no cap).
    triple_on_66      : a 6-6 opening tie triples instead of doubling (needs auto_doubles).
    max_cube          : the highest stake the cube may reach (None = no limit).

    >>> MoneyRules(beavers=True, raccoons=True).raccoons
    True
    """
    jacoby: bool = True
    beavers: bool = False
    raccoons: bool = False
    auto_doubles: bool = False
    auto_double_limit: object = 1
    triple_on_66: bool = False
    max_cube: object = 64

    def __post_init__(self):
        for name in ("jacoby", "beavers", "raccoons", "auto_doubles", "triple_on_66"):
            _check_flag(name, getattr(self, name))
        if self.raccoons and not self.beavers:
            raise ValueError("raccoons need beavers (a raccoon answers a beaver)")
        if self.triple_on_66 and not self.auto_doubles:
            raise ValueError("triple_on_66 is a variant of automatic doubles: set auto_doubles=True")
        lim = self.auto_double_limit
        if lim is not None and (isinstance(lim, bool) or not isinstance(lim, int) or lim < 1):
            raise ValueError(f"auto_double_limit must be a positive integer or None, got {lim!r}")
        _check_max_cube(self.max_cube)

    @property
    def is_match(self):
        return False


@dataclass(frozen=True)
class MatchRules:
    """Match-play options (RULES.md section 9): a match to ``length`` points.

    crawford : no doubling in the game after a player first reaches length - 1 (default on).
    max_cube : the highest stake the cube may reach (None = no limit).
    Match play never uses the Jacoby rule, beavers or automatic doubles.
    """
    length: int
    crawford: bool = True
    max_cube: object = 64

    def __post_init__(self):
        if isinstance(self.length, bool) or not isinstance(self.length, int) or self.length < 1:
            raise ValueError(f"match length must be a positive integer, got {self.length!r}")
        _check_flag("crawford", self.crawford)
        _check_max_cube(self.max_cube)

    @property
    def is_match(self):
        return True
