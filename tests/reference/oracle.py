"""Readers for the oracle files shipped in tests/data (copies of ../shared/oracle).

Nothing here imports fastbg. Boards come back as tuples of 26 ints.
"""
import collections
import csv
import gzip
import json
import pathlib

DATA = pathlib.Path(__file__).resolve().parent.parent / "data"

# Perft-style totals over the wildbg id files and all 21 rolls (oracle README):
# set -> (sum over the 6 doubles, sum over the 15 non-doubles).
PERFT_TOTALS = {"contact": (218_356, 185_957), "race": (140_720, 122_570)}

# Distinct results per roll from the starting position (oracle README).
OPENING_COUNTS = {
    (2, 1): 15, (3, 1): 16, (3, 2): 17, (4, 1): 14, (4, 2): 18, (4, 3): 17, (5, 1): 8,
    (5, 2): 8, (5, 3): 9, (5, 4): 9, (6, 1): 10, (6, 2): 14, (6, 3): 14, (6, 4): 14,
    (6, 5): 7, (1, 1): 42, (2, 2): 75, (3, 3): 73, (4, 4): 52, (5, 5): 4, (6, 6): 11,
}

# Starting position from the mover's view (docs/rules.md section 1).
START = tuple([0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0])

# The 21 distinct rolls, higher die first.
ROLLS = [(a, b) for a in range(6, 0, -1) for b in range(a, 0, -1)]

Case = collections.namedtuple("Case", "board dice cat moves")


def movegen_cases():
    """Every case of movegen-public.jsonl.gz, as ``Case(board, dice, cat, moves)``.

    ``moves`` is GNU Backgammon's sorted list of distinct resulting boards (tuples).
    """
    out = []
    with gzip.open(DATA / "movegen-public.jsonl.gz", "rt") as f:
        for line in f:
            c = json.loads(line)
            out.append(Case(tuple(c["board"]), tuple(c["dice"]), c["cat"],
                            [tuple(m) for m in c["moves"]]))
    return out


def cases_by_category():
    """``{category: [Case, ...]}`` in file order."""
    by_cat = collections.defaultdict(list)
    for c in movegen_cases():
        by_cat[c.cat].append(c)
    return dict(by_cat)


def move_counts():
    """Rows of move-counts.csv: ``(position_id, (die1, die2), distinct_results)``; 0 = no play."""
    with open(DATA / "move-counts.csv", newline="") as f:
        return [(r["position_id"], (int(r["die1"]), int(r["die2"])), int(r["distinct_results"]))
                for r in csv.DictReader(f)]


def wildbg_ids(name):
    """The Position IDs of wildbg-<name>-ids.txt (``name`` is "contact" or "race")."""
    with open(DATA / f"wildbg-{name}-ids.txt") as f:
        return [line.strip() for line in f if line.strip()]
