"""Round-robin tournaments: figures against direct play, duplicate play, the Elo fit, the
append-only output file (resume, crashes, truncated lines), the CLI and bad input."""
import json
import math
import sys

import numba
import numpy as np
import pytest

import fastbg
from fastbg.jobs.ratings import ELO_SCALE, elo_ratings
from fastbg.jobs.tournaments import TournamentFileError, TournamentResults, pair_seed, tournament

from fastbg.jobs import tournaments as tm      # noqa: E402  (the module; fastbg.tournament is the function)

BOTS = ["random", "greedy", "pubeval"]
GAMES = 400            # per pair: 200 deals, in chunks of 100 games (4 chunks per pair)
CHUNK = 100


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    """The uninterrupted reference run, with its output file."""
    path = tmp_path_factory.mktemp("full") / "t.jsonl"
    res = tournament(BOTS, GAMES, seed=11, out=path, chunk_size=CHUNK)
    return res, path


def test_round_robin_ranks_the_bots(full):
    res, _ = full
    assert not res.partial and res.games_played == res.games_total == 3 * GAMES
    by = {r["bot"]: r for r in res.bots}
    assert by["pubeval"]["rating"] > by["greedy"]["rating"] > by["random"]["rating"]
    assert [by[b]["rank"] for b in ("pubeval", "greedy", "random")] == [1, 2, 3]
    assert math.isclose(sum(r["rating"] for r in res.bots), 0.0, abs_tol=1e-9)
    for r in res.bots:
        lo, hi = r["rating_ci95"]
        assert lo < r["rating"] < hi
        assert r["games"] == 2 * GAMES
    # pubeval's rating interval lies above greedy's, greedy's above random's
    assert by["pubeval"]["rating_ci95"][0] > by["greedy"]["rating_ci95"][1]
    assert by["greedy"]["rating_ci95"][0] > by["random"]["rating_ci95"][1]
    m = res.matrix
    assert np.isnan(np.diag(m)).all()
    assert np.allclose(m, -m.T, equal_nan=True)
    assert m[2, 0] > 2 and m[1, 0] > 2 and m[2, 1] > 0.5     # row bot's points per game


def _direct(i, j, deals, seed=11, duplicate=True, **kw):
    """Per-game points and wins of bot i against bot j, played with fastbg.play directly."""
    s = pair_seed(seed, i, j)
    fwd = fastbg.play(deals, (BOTS[i], BOTS[j]), seed=s, **kw)
    if not duplicate:
        return fwd.points.astype(np.int64), (fwd.winner == 0), fwd.kind, None
    swp = fastbg.play(deals, (BOTS[j], BOTS[i]), seed=s, **kw)
    pts = np.concatenate([fwd.points, -swp.points]).astype(np.int64)
    win = np.concatenate([fwd.winner == 0, swp.winner == 1])
    kind = np.concatenate([fwd.kind, swp.kind])
    return pts, win, kind, fwd.points.astype(np.int64) - swp.points


def test_pairs_agree_with_direct_play(full):
    res, _ = full
    assert len(res.pairs) == 3
    for row in res.pairs:
        i, j = row["index"]
        assert row["bots"] == [BOTS[i], BOTS[j]]
        pts, win, kind, deal = _direct(i, j, GAMES // 2)
        assert row["games"] == GAMES and row["deals"] == GAMES // 2
        assert row["points_per_game"] == pts.sum() / GAMES
        assert row["win_rate"] == win.sum() / GAMES
        assert row["gammon_rate"] == [((kind == 2) & win).sum() / GAMES,
                                      ((kind == 2) & ~win).sum() / GAMES]
        assert row["backgammon_rate"] == [((kind == 3) & win).sum() / GAMES,
                                          ((kind == 3) & ~win).sum() / GAMES]
        # the interval is over deals: the two games of a deal are not independent
        half = 1.959963984540054 * deal.std(ddof=1) / (2 * math.sqrt(GAMES // 2))
        lo, hi = row["points_per_game_ci95"]
        assert lo == pytest.approx(pts.mean() - half, rel=1e-12)
        assert hi == pytest.approx(pts.mean() + half, rel=1e-12)


def test_without_duplicate_each_game_is_played_once():
    res = tournament(["greedy", "pubeval"], 301, seed=3, duplicate=False, chunk_size=64)
    (row,) = res.pairs
    pts = fastbg.play(301, ("greedy", "pubeval"), seed=pair_seed(3, 0, 1)).points
    assert "deals" not in row and row["games"] == 301
    assert row["points_per_game"] == pts.sum() / 301
    half = 1.959963984540054 * pts.std(ddof=1) / math.sqrt(301)
    assert row["points_per_game_ci95"][1] == pytest.approx(pts.mean() + half, rel=1e-12)


@numba.njit
def _race_ahead(before, candidates, out):
    for i in range(candidates.shape[0]):
        pips = 0
        for p in range(1, 26):
            if candidates[i, p] > 0:
                pips += p * candidates[i, p]
        out[i] = -pips


def test_duplicate_play_cancels_the_dice():
    """Two copies of one deterministic bot: each deal is a win and a loss of the same size,
    so duplicate play sees no difference at all, while single games see only luck."""
    twins = [fastbg.ScorerBot(_race_ahead, "twin-a"), fastbg.ScorerBot(_race_ahead, "twin-b")]
    dup = tournament(twins, 200, seed=5, duplicate=True).pairs[0]
    single = tournament(twins, 200, seed=5, duplicate=False).pairs[0]
    assert dup["points_per_game"] == 0.0 and dup["points_per_game_ci95"] == [0.0, 0.0]
    assert dup["win_rate"] == 0.5
    lo, hi = single["points_per_game_ci95"]
    assert hi - lo > 0.3            # about +-0.2 points per game from the dice alone


# ----------------------------------------------------------------------------- the file

def _lines(path):
    return path.read_bytes().splitlines()


def test_output_file_layout(full):
    _, path = full
    lines = [json.loads(x) for x in _lines(path)]
    assert lines[0] == {"fastbg_journal": 1, "job": "tournament", "settings": {
        "bots": BOTS, "games": GAMES, "seed": 11, "duplicate": True, "rules": None,
        "match_length": None, "cube": "never", "chunk_size": CHUNK,
        "fastbg": fastbg.__version__}}
    chunks = lines[1:]
    assert len(chunks) == 3 * (GAMES // CHUNK)
    # played chunk by chunk, pair by pair, so an interrupted run covers every pair
    assert [c["pair"] for c in chunks[:3]] == [[0, 1], [0, 2], [1, 2]]
    assert [(c["chunk"], c["start"], c["n"]) for c in chunks[:4]] == [
        (0, 0, 50), (0, 0, 50), (0, 0, 50), (1, 50, 50)]
    assert all(c["stats"]["games"] == CHUNK and c["stats"]["deals"] == CHUNK // 2
               for c in chunks)
    loaded = TournamentResults.load(path)
    assert loaded.to_json() == full[0].to_json()


class _Stop(Exception):
    pass


def _interrupt_after(monkeypatch, n_chunks, exc=KeyboardInterrupt):
    """Make the tournament stop (Ctrl-C, or crash with ``exc``) when chunk n_chunks + 1 starts."""
    real = tm._play_chunk
    calls = []

    def chunk(*args):
        if len(calls) == n_chunks:
            raise exc
        calls.append(args)
        return real(*args)
    monkeypatch.setattr(tm, "_play_chunk", chunk)


def test_resume_after_ctrl_c_is_bit_identical(full, tmp_path, monkeypatch):
    ref, ref_path = full
    path = tmp_path / "t.jsonl"
    _interrupt_after(monkeypatch, 5)
    part = tournament(BOTS, GAMES, seed=11, out=path, chunk_size=CHUNK)
    monkeypatch.undo()
    assert part.partial and part.games_played == 5 * CHUNK
    assert len(_lines(path)) == 1 + 5
    assert TournamentResults.load(path).to_json() == part.to_json()
    assert "PARTIAL" in part.table()
    done = tournament(BOTS, GAMES, seed=11, out=path, chunk_size=CHUNK, resume=True,
                      threads=1)
    assert not done.partial
    assert done.to_json() == ref.to_json()
    assert path.read_bytes() == ref_path.read_bytes()


def test_resume_after_crash_is_bit_identical(full, tmp_path, monkeypatch):
    ref, ref_path = full
    path = tmp_path / "t.jsonl"
    _interrupt_after(monkeypatch, 7, _Stop)
    with pytest.raises(_Stop):
        tournament(BOTS, GAMES, seed=11, out=path, chunk_size=CHUNK)
    monkeypatch.undo()
    assert TournamentResults.load(path).games_played == 7 * CHUNK
    done = tournament(BOTS, GAMES, seed=11, out=path, chunk_size=CHUNK, resume=True)
    assert done.to_json() == ref.to_json()
    assert path.read_bytes() == ref_path.read_bytes()


def test_ctrl_c_inside_play_does_not_record_half_a_chunk(tmp_path, monkeypatch):
    """fastbg.play returns partial results on Ctrl-C; such a chunk must not be saved."""
    real, calls = tm.play, []

    def play(n, *args, **kw):
        res = real(n, *args, **kw)
        if n:
            calls.append(n)
        if len(calls) == 4:            # the second chunk's swapped games
            res.partial = True
        return res
    monkeypatch.setattr(tm, "play", play)
    path = tmp_path / "t.jsonl"
    res = tournament(["greedy", "pubeval"], 40, seed=2, out=path, chunk_size=10)
    assert res.partial and res.games_played == 10
    assert len(_lines(path)) == 2


def test_truncated_last_line_is_ignored(full, tmp_path):
    ref, ref_path = full
    path = tmp_path / "t.jsonl"
    data = ref_path.read_bytes()
    cut = data[:len(data) - 40]                 # a crash in the middle of the last line
    path.write_bytes(cut)
    loaded = TournamentResults.load(path)
    assert loaded.partial and loaded.games_played == ref.games_played - CHUNK
    path.write_bytes(data[:-1])                 # even a line missing only its newline
    assert TournamentResults.load(path).games_played == ref.games_played - CHUNK
    path.write_bytes(cut)
    done = tournament(BOTS, GAMES, seed=11, out=path, chunk_size=CHUNK, resume=True)
    assert done.to_json() == ref.to_json()
    assert path.read_bytes() == data


def test_damaged_line_in_the_middle_is_an_error(full, tmp_path):
    _, ref_path = full
    lines = _lines(ref_path)
    lines[3] = lines[3][:20]
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    with pytest.raises(TournamentFileError, match="line 4 is not valid JSON"):
        TournamentResults.load(path)


def test_resume_checks_the_configuration(full, tmp_path):
    _, ref_path = full
    path = tmp_path / "t.jsonl"
    path.write_bytes(ref_path.read_bytes())
    with pytest.raises(TournamentFileError,
                       match=r"games: 400 there, 800 here.*seed: 11 there, 12 here"):
        tournament(BOTS, 800, seed=12, out=path, chunk_size=CHUNK, resume=True)
    with pytest.raises(TournamentFileError, match="duplicate: True there, False here"):
        tournament(BOTS, GAMES, seed=11, out=path, chunk_size=CHUNK, resume=True,
                   duplicate=False)
    with pytest.raises(FileExistsError, match="resume"):
        tournament(BOTS, GAMES, seed=11, out=path, chunk_size=CHUNK)
    assert path.read_bytes() == ref_path.read_bytes()      # left as it was
    other = tmp_path / "notes.txt"
    other.write_text("my notes")
    with pytest.raises(TournamentFileError, match="not a fastbg tournament file"):
        tournament(BOTS, GAMES, seed=11, out=other, resume=True)
    assert other.read_text() == "my notes"


def test_save_and_load_round_trip(full, tmp_path):
    ref, _ = full
    path = tmp_path / "copy.jsonl"
    ref.save(path)
    assert TournamentResults.load(path).to_json() == ref.to_json()
    parsed = json.loads(ref.to_json())
    assert parsed["games_played"] == 3 * GAMES and len(parsed["pairs"]) == 3


# ----------------------------------------------------------------------------- other modes

def test_matches():
    res = tournament(["random", "pubeval"], 40, seed=4, match_length=3, chunk_size=10)
    (row,) = res.pairs
    s = pair_seed(4, 0, 1)
    fwd = fastbg.play_matches(20, 3, ("random", "pubeval"), seed=s)
    swp = fastbg.play_matches(20, 3, ("pubeval", "random"), seed=s)
    wins = int((fwd.winner == 0).sum() + (swp.winner == 1).sum())
    assert row["matches"] == 40 and row["match_win_rate"] == wins / 40
    assert row["games_per_match"] == (fwd.games.sum() + swp.games.sum()) / 40
    assert res.bots[1]["rating"] > res.bots[0]["rating"]
    assert res.bots[1]["match_win_rate"] > 0.8
    assert "3-point matches" in res.table() and "match-winning rate" in res.table()


def test_money_play_with_the_cube():
    rules = fastbg.MoneyRules(beavers=True)
    res = tournament(["greedy", "pubeval"], 60, seed=6, rules=rules, chunk_size=20)
    (row,) = res.pairs
    s = pair_seed(6, 0, 1)
    fwd = fastbg.play(30, ("greedy", "pubeval"), seed=s, rules=rules, cube=("race", "race"))
    swp = fastbg.play(30, ("pubeval", "greedy"), seed=s, rules=rules, cube=("race", "race"))
    assert row["points_per_game"] == (fwd.points.sum() - swp.points.sum()) / 60
    assert row["mean_cube"] == (fwd.cube.sum() + swp.cube.sum()) / 60
    assert res.config["rules"]["beavers"] is True and res.config["cube"] == "race"


def test_elo_fit_recovers_known_ratings():
    # 75% wins is odds 3: 400 log10(3) Elo apart, the mean held at 0
    r, half, note = elo_ratings(2, [(0, 1, 400, 300, 400 * 0.25 * 0.75)])
    assert note is None
    assert r[0] - r[1] == pytest.approx(400 * math.log10(3), rel=1e-9)
    assert r[0] + r[1] == pytest.approx(0, abs=1e-9)
    # binomial variance: the delta method for a logit gives the interval directly
    se = 1 / math.sqrt(400 * 0.25 * 0.75) * ELO_SCALE / 2
    assert half[0] == pytest.approx(1.959963984540054 * se, rel=1e-9)
    # three bots with exact Bradley-Terry win rates are recovered
    true = np.array([150.0, 0.0, -150.0])
    data = []
    for i in range(3):
        for j in range(i + 1, 3):
            p = 1 / (1 + 10 ** (-(true[i] - true[j]) / 400))
            data.append((i, j, 10_000, 10_000 * p, 10_000 * p * (1 - p)))
    r, _, _ = elo_ratings(3, data)
    assert np.allclose(r, true, atol=1e-6)
    # a bot that lost every game: no finite maximum, so the correction is applied and named
    r, half, note = elo_ratings(2, [(0, 1, 50, 50, 0.0)])
    assert "virtual" in note and r[0] > r[1] and all(np.isfinite(half))


def test_pair_seed_is_documented_hash():
    import hashlib
    want = int.from_bytes(hashlib.blake2b(b"fastbg-tournament:7:1:2", digest_size=8).digest(),
                          "little")
    assert pair_seed(7, 1, 2) == want
    assert len({pair_seed(7, i, j) for i in range(4) for j in range(i + 1, 4)}) == 6


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(bots=["pubeval"]), "at least two bots"),
    (dict(bots="pubeval"), "at least two bots"),
    (dict(bots=["pubeval", "PubEval"]), "appears twice"),
    (dict(bots=["pubeval", "nobody"]), "unknown bot"),
    (dict(games=0), "games must be in"),
    (dict(games=11), "must be even"),
    (dict(chunk_size=0), "chunk_size"),
    (dict(match_length=0), "match_length"),
    (dict(rules=fastbg.MoneyRules(), match_length=5), "disagrees"),
    (dict(cube="sometimes", rules=fastbg.MoneyRules()), "unknown cube strategy"),
    (dict(cube="race"), "need rules"),
])
def test_bad_input(kwargs, fragment, tmp_path):
    args = dict(bots=["greedy", "pubeval"], games=10, out=tmp_path / "t.jsonl") | kwargs
    with pytest.raises(ValueError, match=fragment):
        tournament(**args)
    assert not (tmp_path / "t.jsonl").exists()       # nothing written for bad input


# ----------------------------------------------------------------------------- plot

def test_plot_draws_the_matrix(full, tmp_path):
    pytest.importorskip("matplotlib", reason="the plot needs matplotlib (the 'plot' extra)")
    png = tmp_path / "m.png"
    picture = full[0].plot(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    # the picture a notebook draws is the file's bytes; without a path nothing is written
    assert picture._repr_png_() == png.read_bytes()
    assert full[0].plot()._repr_png_() == png.read_bytes()


def test_plot_without_matplotlib_names_the_extra(full, tmp_path, monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)      # import matplotlib fails
    with pytest.raises(ImportError, match=r"fastbg\[plot\]"):
        full[0].plot(tmp_path / "m.png")


# ----------------------------------------------------------------------------- CLI

click_testing = pytest.importorskip("click.testing", reason="the CLI needs the 'cli' extra")


def run(*args):
    from fastbg.cli import main
    return click_testing.CliRunner().invoke(main, list(args))


def test_cli_end_to_end(full, tmp_path):
    ref, _ = full
    out, js = tmp_path / "t.jsonl", tmp_path / "t.json"
    args = ["tournament", "--bots", ",".join(BOTS), "--games", str(GAMES), "--seed", "11",
            "--chunk", str(CHUNK), "--no-progress", "--out", str(out), "--json", str(js)]
    res = run(*args)
    assert res.exit_code == 0, res.output
    for fragment in ("tournament: random, greedy, pubeval", "Elo (95% CI)",
                     "points per game of row vs column", "games/s"):
        assert fragment in res.output
    assert js.read_text() == ref.to_json() + "\n"
    assert all(isinstance(json.loads(x), dict) for x in _lines(out))
    res = run(*args, "--resume", "--json", "-")           # nothing left to play
    assert res.exit_code == 0, res.output
    assert json.loads(res.output) == json.loads(ref.to_json())
    res = run(*args)
    assert res.exit_code != 0 and "--resume" in res.output


def test_cli_modes():
    res = run("tournament", "--bots", "random,pubeval", "--match", "3", "--games", "20",
              "--no-progress")
    assert res.exit_code == 0, res.output
    assert "3-point matches" in res.output
    res = run("tournament", "--bots", "greedy,pubeval", "--money", "--beavers", "--games", "20",
              "--max-cube", "none", "--no-progress", "--json", "-")
    assert res.exit_code == 0, res.output
    cfg = json.loads(res.output)["config"]
    assert cfg["rules"]["beavers"] and cfg["rules"]["max_cube"] is None and cfg["cube"] == "race"


def test_cli_plot(tmp_path):
    pytest.importorskip("matplotlib", reason="the plot needs matplotlib (the 'plot' extra)")
    png = tmp_path / "m.png"
    res = run("tournament", "--bots", "random,greedy", "--games", "20", "--no-progress",
              "--plot", str(png))
    assert res.exit_code == 0, res.output
    assert png.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("args, fragment", [
    (("--bots", "pubeval"), "two or more names"),
    (("--bots", "pubeval,pubeval"), "appears twice"),
    (("--bots", "pubeval,nobody"), "unknown bot"),
    (("--bots", "pubeval,greedy", "--games", "0"), "0"),
    (("--bots", "pubeval,greedy", "--games", "7"), "must be even"),
    (("--bots", "pubeval,greedy", "--money", "--match", "3"), "not both"),
    (("--bots", "pubeval,greedy", "--resume"), "--out"),
    (("--bots", "pubeval,greedy", "--money", "--cube", "race,never"), "same cube strategy"),
])
def test_cli_bad_input(args, fragment):
    res = run("tournament", "--no-progress", *args)
    assert res.exit_code != 0
    assert fragment in res.output
