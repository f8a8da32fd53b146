"""The command line, driven through click's test runner."""
import json

import numpy as np
import pytest

click_testing = pytest.importorskip("click.testing", reason="the CLI needs the 'cli' extra (click)")
from fastbg.cli import main  # noqa: E402


def run(*args):
    return click_testing.CliRunner().invoke(main, list(args))


def test_help_lists_commands():
    res = run("--help")
    assert res.exit_code == 0
    for cmd in ("demo", "moves", "play"):
        assert cmd in res.output


def test_moves_from_start():
    res = run("moves", "4HPwATDgc/ABMA", "3-1")
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0] == "16 distinct results"
    assert len(lines) == 17
    assert "4HPwATDgc/ABMA" not in lines[1:]   # 3-1 always changes the start position


def test_moves_prints_notation():
    """Each result line is its Position ID and the move in GNU Backgammon's notation."""
    import fastbg
    res = run("moves", "4HPwATDgc/ABMA", "3-1")
    rows = [line.split("  ", 1) for line in res.output.splitlines()[1:]]
    assert all(len(row) == 2 for row in rows)
    for pid, text in rows:
        assert fastbg.position_id(fastbg.parse_move(fastbg.START, text, (3, 1))) == pid
    point = fastbg.position_id(fastbg.parse_move(fastbg.START, "8/5 6/5", (3, 1)))
    assert [point, "8/5 6/5"] in rows

    closed = np.zeros(26, np.int8)
    closed[25], closed[6] = 1, 14
    closed[18:25] = [-3, -2, -2, -2, -2, -2, -2]        # all six entry points closed
    res = run("moves", fastbg.position_id(closed), "6-5")
    assert res.output.splitlines()[1:] == [f"{fastbg.position_id(closed)}  Cannot move"]


@pytest.mark.parametrize("args, fragment", [
    (("moves", "not-an-id", "3-1"), "Position ID"),
    (("moves", "4HPwATDgc/ABMA", "7-1"), "between 1 and 6"),
    (("moves", "4HPwATDgc/ABMA", "x"), "dice look like"),
])
def test_moves_bad_input(args, fragment):
    res = run(*args)
    assert res.exit_code != 0
    assert fragment in res.output


def test_selfcheck_checks_perft_totals(tmp_path):
    out = tmp_path / "check.json"
    res = run("selfcheck", "--repeat", "1", "--threads", "1", "--games", "2000",
              "--json", str(out))
    assert res.exit_code == 0, res.output
    assert "agrees" in res.output
    figures = json.loads(out.read_text())
    assert figures["results"] == figures["results_expected"] == 667_603
    assert figures["pairs"] == 42_000 and figures["pairs_per_s"] > 0
    assert figures["random_vs_random"]["games"] == 2000
    assert 80 < figures["random_vs_random"]["mean_plies"] < 110


def test_demo_is_a_tournament_and_a_rollout_as_the_api_gives_them(tmp_path, monkeypatch):
    """The demo's two results equal the API calls it stands for (same seed, same bits)."""
    import fastbg
    from fastbg.sim.bots import strongest_bot
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "demo.json"
    res = run("demo", "--games", "200", "--trials", "72", "--seed", "3", "--no-progress",
              "--plot", "none", "--json", str(out))
    assert res.exit_code == 0, res.output
    assert "Next, try:" in res.output and "fastbg rollout" in res.output
    got = json.loads(out.read_text())
    tour = fastbg.tournament(["random", "greedy", "pubeval"], 200, 3, duplicate=True)
    assert got["tournament"] == json.loads(tour.to_json())
    nets = strongest_bot() == "gnubg"
    roll = fastbg.rollout_moves(fastbg.START, (3, 1), moves=5 if nets else None, trials=72,
                                bot=strongest_bot(), seed=3)
    assert got["rollout"] == json.loads(json.dumps(roll.to_dict()))
    assert len(got["rollout"]["rows"]) == (5 if nets else 16)
    assert not (tmp_path / "fastbg-demo.png").exists()


def test_demo_saves_its_plot_where_it_says(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib", reason="the plot needs the 'plot' extra")
    monkeypatch.chdir(tmp_path)
    res = run("demo", "--games", "20", "--trials", "36", "--bot", "pubeval", "--no-progress")
    assert res.exit_code == 0, res.output
    png = tmp_path / "fastbg-demo.png"
    assert f"plot saved: {png}" in res.output
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_play_prints_summary_and_saves(tmp_path):
    import fastbg
    js, npz = tmp_path / "s.json", tmp_path / "r.npz"
    res = run("play", "--bots", "pubeval,random", "--games", "300", "--seed", "4",
              "--no-progress", "--json", str(js), "--save", str(npz))
    assert res.exit_code == 0, res.output
    assert "points per game" in res.output
    summary = json.loads(js.read_text())
    again = fastbg.play(300, ("pubeval", "random"), seed=4)
    assert summary["points_per_game"] == again.summary()["points_per_game"]
    loaded = fastbg.GameResults.load(npz)
    assert (loaded.points == again.points).all() and loaded.bots == ("pubeval", "random")


@pytest.mark.parametrize("args, fragment", [
    (("play", "--bots", "pubeval"), "two names"),
    (("play", "--bots", "pubeval,nobody", "--games", "10"), "unknown bot"),
    (("play", "--games", "0"), "0"),
])
def test_play_bad_input(args, fragment):
    res = run(*args)
    assert res.exit_code != 0
    assert fragment in res.output


def test_play_money_and_match_options(tmp_path):
    import fastbg
    js = tmp_path / "m.json"
    res = run("play", "--bots", "pubeval,greedy", "--money", "--beavers", "--auto-doubles", "2",
              "--max-cube", "none", "--games", "400", "--seed", "3", "--no-progress",
              "--json", str(js))
    assert res.exit_code == 0, res.output
    assert "mean cube" in res.output
    # the default cube: the default networks' for both players (gnubg's, else fastbg's)
    from fastbg.sim.bots import strongest_bot
    again = fastbg.play(400, ("pubeval", "greedy"), seed=3, cube=(strongest_bot(),) * 2,
                        rules=fastbg.MoneyRules(beavers=True, auto_doubles=True,
                                                auto_double_limit=2, max_cube=None))
    assert json.loads(js.read_text())["points_per_game"] == again.summary()["points_per_game"]
    res = run("play", "--bots", "pubeval,random", "--match", "5", "--games", "50",
              "--no-progress")
    assert res.exit_code == 0, res.output
    assert "matches" in res.output and "to 5 points" in res.output
    res = run("play", "--money", "--match", "5", "--games", "5", "--no-progress")
    assert res.exit_code != 0 and "not both" in res.output
    res = run("play", "--money", "--raccoons", "--games", "5", "--no-progress")
    assert res.exit_code != 0 and "raccoons need beavers" in res.output


def test_hint_ranks_like_the_api(tmp_path):
    pytest.importorskip("gnubg_nn", reason="gnubg-nn (the gnubg extra) is not installed")
    import fastbg
    res = run("hint", "4HPwATDgc/ABMA", "3-1", "--ply", "1", "--top", "3",
              "--json", str(tmp_path / "h.json"))
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[-1] == "networks: gnubg (gnubg.weights)"     # the default where installed
    lines = lines[:-1]
    want = fastbg.hint(fastbg.START, (3, 1), ply=1)[:3]
    assert [line.split()[2] for line in lines[::2]] == [c.move.split()[0] for c in want]
    assert lines[0].startswith("   1. 1-ply  8/5 6/5")
    saved = json.loads((tmp_path / "h.json").read_text())
    assert [c["move"] for c in saved["candidates"]] == [c.move for c in want]
    xg = run("hint", "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10", "--json", "-")
    assert json.loads(xg.output)["candidates"][0]["move"] == "8/5 6/5"


def test_hint_with_gnubgs_filter_and_pruning_nets():
    pytest.importorskip("gnubg_nn", reason="gnubg-nn (the gnubg extra) is not installed")
    import fastbg
    pid = "pGfwATDgc/ABMA"                          # ten moves within 0.32 with 4-2
    board = fastbg.board_from_position_id(pid)
    res = run("hint", pid, "4-2", "--ply", "1", "--filter", "large", "--pruning-nets",
              "--json", "-")
    assert res.exit_code == 0, res.output
    want = fastbg.hint(board, (4, 2), ply=1, filter="large", prune=True)
    got = json.loads(res.output)["candidates"]
    assert [c["move"] for c in got] == [c.move for c in want]
    assert [c["ply"] for c in got] == [c.ply for c in want]
    bad = run("hint", pid, "4-2", "--ply", "3", "--filter", "normal")
    assert bad.exit_code != 0 and "ply 1 or 2" in bad.output and "Traceback" not in bad.output
    # a filter of one's own: at most 3 moves within 0.32
    res = run("hint", pid, "4-2", "--ply", "1", "--filter", "3x0.32", "--json", "-")
    assert res.exit_code == 0, res.output
    want = fastbg.hint(board, (4, 2), ply=1, filter=(3, 0.32))
    got = json.loads(res.output)["candidates"]
    assert [c["move"] for c in got] == [c.move for c in want]
    assert [c["ply"] for c in got].count(1) == 3
    for text in ("0x0.1", "widest"):
        bad = run("hint", pid, "4-2", "--ply", "1", "--filter", text)
        assert bad.exit_code == 2 and "--filter" in bad.output and "Traceback" not in bad.output


@pytest.mark.parametrize("args, fragment", [
    (("hint", "not-an-id", "3-1"), "Position ID"),
    (("hint", "4HPwATDgc/ABMA"), "DICE"),
    (("hint", "4HPwATDgc/ABMA", "3-9"), "between 1 and 6"),
    (("hint", "4HPwATDgc/ABMA", "3-1", "--ply", "7"), "--ply"),
])
def test_hint_bad_input(args, fragment):
    res = run(*args)
    assert res.exit_code != 0
    assert fragment in res.output
    assert "Traceback" not in res.output


def test_eval_prints_probabilities_and_cube_decision():
    pytest.importorskip("gnubg_nn", reason="gnubg-nn (the gnubg extra) is not installed")
    import fastbg
    res = run("eval", "4HPwATDgc/ABMA", "--match", "7", "--score", "2-4", "--json", "-")
    assert res.exit_code == 0, res.output
    got = json.loads(res.output)
    want = fastbg.cube_decision(fastbg.START, rules=fastbg.MatchRules(7), score=(2, 4))
    assert got["cube_decision"]["action"] == want.action == "no double, take"
    assert got["cube_decision"]["no_double"] == pytest.approx(want.no_double)
    assert got["probabilities"] == pytest.approx(list(want.probabilities))
    text = run("eval", "4HPwATDgc/ABMA", "--ply", "1")
    assert text.exit_code == 0, text.output
    assert "1-ply cubeless" in text.output and "Proper cube action: No double, take" in text.output
    owned = run("eval", "4HPwATDgc/ABMA", "--cube", "2", "--owner", "opponent")
    assert owned.exit_code == 0 and "no cube decision" in owned.output


@pytest.mark.parametrize("args, fragment", [
    (("eval", "nonsense"), "Position ID"),
    (("eval", "4HPwATDgc/ABMA", "--score", "2-4"), "--score needs --match"),
    (("eval", "4HPwATDgc/ABMA", "--match", "7", "--score", "9-4"), "0..6"),
    (("eval", "4HPwATDgc/ABMA", "--match", "7", "--score", "two"), "2-4"),
    (("eval", "4HPwATDgc/ABMA", "--ply", "4"), "--ply"),
])
def test_eval_bad_input(args, fragment):
    res = run(*args)
    assert res.exit_code != 0
    assert fragment in res.output
    assert "Traceback" not in res.output


def test_analyse_report_and_bad_files(tmp_path):
    import os
    import fastbg
    sample = os.path.join(os.path.dirname(__file__), "data", "gnubg-3pt-seed7.mat")
    out = tmp_path / "a.json"
    r = run("analyse", sample, "--json", str(out))
    assert r.exit_code == 0, r.output
    assert "Error total EMG" in r.output and "Luck adjusted result" in r.output
    assert fastbg.Analysis.load(out).length == 3
    bad = tmp_path / "bad.mat"
    bad.write_text("junk\n")
    r = run("analyse", str(bad))
    assert r.exit_code == 1 and "Traceback" not in r.output and "bad.mat" in r.output


def test_info_json_reports_the_cache_and_the_extras(tmp_path, monkeypatch):
    import fastbg
    from fastbg.extras import EXTRAS, is_installed
    monkeypatch.setenv("FASTBG_CACHE", str(tmp_path))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    res = run("info", "--json")
    assert res.exit_code == 0, res.output
    rec = json.loads(res.output)
    assert rec["fastbg"] == fastbg.__version__
    assert rec["kernel_cache"]["path"] == str(tmp_path / "numba")
    assert rec["kernel_cache"]["from"] == "FASTBG_CACHE"
    assert {k: v["installed"] for k, v in rec["extras"].items()} == {
        e.name: is_installed(e.name) for e in EXTRAS}
    assert rec["cpu"] and rec["threads"] >= 1
    from fastbg.evaluators import cpu_variants
    assert rec["kernels"]["compress_store"] == cpu_variants.COMPRESS
    assert rec["kernels"]["avx512"] == cpu_variants.HAS_AVX512
    assert rec["kernels"]["hidden_passes"] == cpu_variants.HIDDEN_PASSES
    assert rec["kernels"]["top_bit"] == cpu_variants.TOP_BIT
    assert rec["kernels"]["point_adds"] == cpu_variants.POINT_ADDS
    text = run("info")
    assert text.exit_code == 0 and str(tmp_path / "numba") in text.output
    assert f"the {cpu_variants.COMPRESS!r} compressing store" in text.output
    assert f"hidden sums in {cpu_variants.HIDDEN_PASSES} pass" in text.output
    assert f"the pip loss's top bits by {cpu_variants.TOP_BIT!r}" in text.output
    assert f"the points' rows by {cpu_variants.POINT_ADDS!r}" in text.output


def test_info_clear_cache_removes_this_install_only(tmp_path, monkeypatch):
    from fastbg.user_cache import install_kernel_folders
    monkeypatch.setenv("FASTBG_CACHE", str(tmp_path))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    mine = install_kernel_folders()
    assert len(mine) >= 8 and all(f.parent == tmp_path / "numba" for f in mine)
    for folder in mine[:3]:
        folder.mkdir(parents=True)
        (folder / "k.nbi").write_bytes(b"x" * 10)
    other = tmp_path / "numba" / "position_0123"          # another checkout's kernels
    other.mkdir()
    (other / "k.nbi").write_bytes(b"y")
    res = run("info", "--clear-cache")
    assert res.exit_code == 0, res.output
    assert "removed 3 cached kernel files" in res.output
    assert not any(f.exists() for f in mine) and (other / "k.nbi").exists()
