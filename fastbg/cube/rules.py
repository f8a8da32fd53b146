"""Rule sets for scoring: money play (docs/rules.md section 8) and match play (section 9)."""
from dataclasses import dataclass

from fastbg.validation import check_flag, check_int


@dataclass(frozen=True)
class MoneyRules:
    """Money-game options (docs/rules.md sections 6-8).

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
            check_flag(name, getattr(self, name))
        if self.raccoons and not self.beavers:
            raise ValueError("raccoons need beavers (a raccoon answers a beaver)")
        if self.triple_on_66 and not self.auto_doubles:
            raise ValueError("triple_on_66 is a variant of automatic doubles: set auto_doubles=True")
        check_int("auto_double_limit", self.auto_double_limit, 1, none=True)
        check_int("max_cube (None: no limit)", self.max_cube, 1, none=True)

    @property
    def is_match(self):
        return False

    def to_dict(self):
        """The options as plain JSON data (results files record them)."""
        return {"type": "money", "jacoby": self.jacoby, "beavers": self.beavers,
                "raccoons": self.raccoons, "auto_doubles": self.auto_doubles,
                "auto_double_limit": self.auto_double_limit,
                "triple_on_66": self.triple_on_66, "max_cube": self.max_cube}


@dataclass(frozen=True)
class MatchRules:
    """Match-play options (docs/rules.md section 9): a match to ``length`` points.

    crawford : no doubling in the game after a player first reaches length - 1 (default on).
    max_cube : the highest stake the cube may reach (None = no limit).
    Match play never uses the Jacoby rule, beavers or automatic doubles.
    """
    length: int
    crawford: bool = True
    max_cube: object = 64

    def __post_init__(self):
        check_int("match length", self.length, 1)
        check_flag("crawford", self.crawford)
        check_int("max_cube (None: no limit)", self.max_cube, 1, none=True)

    @property
    def is_match(self):
        return True

    def to_dict(self):
        """The options as plain JSON data (results files record them)."""
        return {"type": "match", "length": self.length, "crawford": self.crawford,
                "max_cube": self.max_cube}


def rules_dict(rules):
    """``rules.to_dict()``, or None for cubeless play (TypeError for anything else)."""
    if rules is None:
        return None
    if not isinstance(rules, (MoneyRules, MatchRules)):
        raise TypeError(f"rules must be MoneyRules, MatchRules or None, got {type(rules).__name__}")
    return rules.to_dict()


def rules_from_dict(data):
    """The rules :func:`rules_dict` wrote (None for cubeless play)."""
    if data is None:
        return None
    fields = {k: v for k, v in data.items() if k != "type"}
    if data.get("type") == "money":
        return MoneyRules(**fields)
    if data.get("type") == "match":
        return MatchRules(**fields)
    raise ValueError(f"not a rules record: {data!r}")
