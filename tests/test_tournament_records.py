"""tournament(..., record=True): every pair's records are those of play / play_matches
with the pair's seed, seat by seat; the CLI's --mat writes them as .mat files that read
back to the same records (docs/records.md section 7)."""
import os

from click.testing import CliRunner

import fastbg
from fastbg.cli import main


def test_match_records_are_those_of_play_matches():
    res = fastbg.tournament(["pubeval", "random"], games=4, seed=3, match_length=3,
                            record=True)
    seed = fastbg.pair_seed(3, 0, 1)
    first, second = res.records[(0, 1)]
    assert list(res.records) == [(0, 1)] and len(first) == len(second) == 2
    for seated, recs in ((("pubeval", "random"), first), (("random", "pubeval"), second)):
        ref = fastbg.play_matches(2, 3, seated, cube=("race", "race"), seed=seed, record=True)
        assert list(recs) == list(ref.records)
    # the records are the games the statistics count
    wins = sum(m.winner == 0 for m in first) + sum(m.winner == 1 for m in second)
    assert wins == res._totals[(0, 1)]["wins"]
    assert fastbg.tournament(["pubeval", "random"], games=4, seed=3).records is None


def cli_money_session(tmp_path, a, b, games, seed):
    """Run ``fastbg tournament --bots a,b --money --mat DIR``; the session of ``b`` seated
    first, checked equal to fastbg.play's records of that pair's games (its seed, half the
    games each way)."""
    out = tmp_path / "mat"
    r = CliRunner().invoke(main, ["tournament", "--bots", f"{a},{b}", "--games", str(games),
                                  "--seed", str(seed), "--money", "--no-progress", "--mat",
                                  str(out)])
    assert r.exit_code == 0, r.output
    assert sorted(os.listdir(out)) == sorted([f"{a}-vs-{b}.mat", f"{b}-vs-{a}.mat"])
    ref = fastbg.play(games // 2, (b, a), seed=fastbg.pair_seed(seed, 0, 1),
                      rules=fastbg.MoneyRules(), cube=("race", "race"), record=True)
    session = fastbg.read_mat(out / f"{b}-vs-{a}.mat", rules=fastbg.MoneyRules())
    assert session == fastbg.money_session(ref.records)
    return session


def test_cli_writes_money_sessions(tmp_path):
    session = cli_money_session(tmp_path, "pubeval", "random", 6, 4)
    assert [g.score for g in session.games][0] == (0, 0) and len(session.games) == 3
