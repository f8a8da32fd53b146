"""fastbg's own networks in training: the TD(0) kernels against their slow reference
(tests/reference/td_ref.py), runs cut into chunks and resumed learning the same bits,
the weights file read by every evaluator, and a short run that must learn to beat the
untrained networks."""
import numpy as np
import pytest

import fastbg
from fastbg.evaluators import bearoff
from fastbg.evaluators import net_kernels as K
from fastbg.evaluators.nets import WeightsError, load_weights
from fastbg.training import td_kernels as TD
from fastbg.training.td import train_td
from fastbg.training.weights import export_gnubg_text, load_net, new_net, save_weights
from reference import td_ref

BO = bearoff.tables()


def _copy(net):
    return net._replace(w1=net.w1.copy(), b1=net.b1.copy(), w2=net.w2.copy(),
                        b2=net.b2.copy())


def _assert_same(a, b, atol):
    for name in ("w1", "b1", "w2", "b2"):
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=0, atol=atol,
                                   err_msg=name)


BOARDS = {
    "contact": fastbg.START,
    "crashed": fastbg.board_from_position_id("twAEAMZ2yIADAA"),
    "race": fastbg.board_from_position_id("e7cBAIC33SQAAA"),
}


@pytest.mark.parametrize("kind", sorted(BOARDS))
def test_one_update_is_the_chain_rule(kind):
    net = new_net(seed=5)
    ref = _copy(net)
    target = np.array([0.7, 0.2, 0.01, 0.1, 0.005], np.float32)
    scr = K.scratch()
    grad_h = np.zeros(net.w1.shape[2], np.float32)
    k = TD.td_update(BOARDS[kind], target, 0.1, net, BO, scr, grad_h)
    k_ref = td_ref.update(BOARDS[kind], target, 0.1, ref, BO)
    assert k == k_ref == {"contact": K.NET_CONTACT, "crashed": K.NET_CRASHED,
                          "race": K.NET_RACE}[kind]
    assert not np.array_equal(net.w2, new_net(seed=5).w2)        # it did learn something
    _assert_same(net, ref, 2e-6)


def test_bear_off_positions_learn_nothing():
    home = np.zeros(26, np.int8)
    home[1:4] = 1
    home[22:25] = -1
    net = new_net(seed=5)
    before = _copy(net)
    k = TD.td_update(home, np.ones(5, np.float32), 0.1, net, BO, K.scratch(),
                     np.zeros(128, np.float32))
    assert k == -1
    _assert_same(net, before, 0)


def test_self_play_games_equal_the_reference_loop():
    net = new_net(seed=2)
    ref = _copy(net)
    stats = np.zeros(TD.S_SIZE)
    TD.td_games(3, 0, 2, 0.1, np.array(fastbg.START), net, BO, stats)
    td_ref.play_and_learn(3, 2, 0.1, ref, BO)
    assert stats[TD.S_GAMES] == 2 and stats[TD.S_PLIES] > 20
    _assert_same(net, ref, 2e-5)


def test_a_run_in_chunks_and_resumed_learns_the_same_bits(tmp_path):
    whole, parts = tmp_path / "whole.npz", tmp_path / "parts.npz"
    train_td(whole, 60, alpha=0.05, seed=9, chunk=60)
    first = train_td(parts, 25, alpha=0.05, seed=9, chunk=10)
    assert first.games == 25 and not first.partial
    again = train_td(parts, 60, alpha=0.05, seed=9, chunk=7)       # another call resumes
    assert again.games == 60 and again.played == 35
    a, _, meta_a = load_net(whole)
    b, _, meta_b = load_net(parts)
    _assert_same(a, b, 0)
    assert meta_a["games"] == meta_b["games"] == 60
    assert [(s["games_from"], s["games_to"]) for s in meta_b["segments"]] == [(0, 25), (25, 60)]
    with pytest.raises(ValueError, match="seed 9"):
        train_td(parts, 80, seed=10)
    with pytest.raises(ValueError, match="alpha"):
        train_td(parts, 80, seed=9, alpha=0)


def test_the_weights_file_runs_in_every_evaluator(tmp_path):
    net = new_net(seed=4)
    stats = np.zeros(TD.S_SIZE)
    TD.td_games(1, 0, 20, 0.1, np.array(fastbg.START), net, BO, stats)   # not symmetric
    path = tmp_path / "nets.npz"
    save_weights(path, net, "test-1", {"note": "a test"})
    back, version, meta = load_net(path)
    _assert_same(back, net, 0)
    assert version == "test-1" and meta == {"note": "a test"}
    # the kernels' batch path (the file's weights with their product rows) gives what the
    # training networks give on the plain path
    boards = np.stack([fastbg.START, BOARDS["crashed"], BOARDS["race"]] +
                      [fastbg.legal_moves(fastbg.START, (6, 5))[0]])
    expect = np.zeros((len(boards), 5))
    K.evaluate_rows_plain(boards, 0, len(boards), False, net, BO, K.scratch(), expect,
                          np.zeros(len(boards), np.int8))
    evaluator = fastbg.gnubg_net(path)
    assert evaluator.weights.format == "fastbg" and evaluator.evaluation == "gnubg-nn"
    np.testing.assert_array_equal(evaluator.probabilities(boards), expect)
    text = tmp_path / "nets.weights"
    export_gnubg_text(text, net, "test-1")
    np.testing.assert_array_equal(fastbg.gnubg_net(text).probabilities(boards), expect)


def test_a_damaged_weights_file_is_refused(tmp_path):
    path = tmp_path / "nets.npz"
    save_weights(path, new_net(seed=1), "x")
    data = path.read_bytes()
    bad = tmp_path / "bad.npz"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(WeightsError):
        load_weights(bad)


def test_a_short_run_learns_to_beat_the_untrained_networks(tmp_path):
    untrained = tmp_path / "untrained.npz"
    save_weights(untrained, new_net(seed=0), "0")
    trained = tmp_path / "trained.npz"
    train_td(trained, 3000, alpha=0.1, seed=1, init_seed=0, chunk=1000)
    bots = [fastbg.EvaluatorBot(fastbg.gnubg_net(p).scores_rows, name)
            for p, name in ((trained, "trained"), (untrained, "untrained"))]
    t = fastbg.tournament(bots, 400, seed=2)
    ppg = t.pairs[0]["points_per_game"]
    assert ppg > 0.3, t.table()


# ------------------------------------------------------------------ the shipped networks

def test_the_shipped_networks_are_fastbgs_own():
    net = fastbg.fastbg_net()
    assert net.name == "fastbg" and net.weights.format == "fastbg"
    _, _, meta = load_net(net.weights.path)
    assert meta["method"] == "td0-self-play" and meta["games"] > 0
    p = net.probabilities(fastbg.START)
    assert 0.4 < p[0] < 0.6 and np.all(np.diff(p[:3]) <= 0)


def test_fastbg_bots_cube_and_evaluator_by_name():
    from fastbg.sim.bots import nply_spec
    from fastbg.sim.setup import resolve_cube
    assert nply_spec("fastbg-1ply").nets == "fastbg" and nply_spec("gnubg-1ply").nets == "gnubg"
    t = fastbg.tournament(["fastbg", "fastbg-1ply", "fastbg-1ply-prune", "pubeval"], 20, seed=3)
    assert [b for b in t.names] == ["fastbg", "fastbg-1ply", "fastbg-1ply-prune", "pubeval"]
    assert resolve_cube("fastbg").net is not None
    res = fastbg.play(20, ("fastbg", "pubeval"), seed=1, rules=fastbg.MoneyRules(),
                      cube=("fastbg", "race"))
    assert res.n_games == 20
    r = fastbg.rollout(fastbg.START, trials=36, bot="fastbg", truncate=4, evaluator="fastbg",
                       seed=1)
    assert r.trials == 36 and abs(r.equity) < 1


def test_without_gnubgs_networks_fastbgs_are_the_default(monkeypatch):
    from fastbg.evaluators import nets
    from fastbg.sim.bots import strongest_bot
    monkeypatch.setattr(nets, "default_weights_path", lambda: None)
    assert strongest_bot() == "fastbg"
    assert fastbg.default_net().name == "fastbg"
    h = fastbg.hint(fastbg.START, (3, 1))
    assert h[0].move == "8/5 6/5"            # every sane evaluator makes the 3-1 point
    d = fastbg.cube_decision(fastbg.START)
    assert d is not None


def _training_script():
    import importlib.util
    import pathlib
    spec = importlib.util.spec_from_file_location(
        "train_nets", pathlib.Path(__file__).parent.parent / "scripts" / "train_nets.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script


def test_the_training_script_end_to_end(tmp_path, capsys):
    script = _training_script()
    out = tmp_path / "g.npz"
    assert script.main(["td", "1", "--out", str(out), "--games", "2000"]) == 0
    _, _, meta = load_net(out)
    assert meta["games"] == 2000
    assert script.main(["judge", "1", "--nets", str(out), "--games", "100"]) == 0
    printed = capsys.readouterr().out
    assert "against pubeval" in printed and "contact" in printed


def test_the_commands_say_which_networks_and_take_net(tmp_path):
    from click.testing import CliRunner
    from fastbg.cli import main
    runner = CliRunner()
    r = runner.invoke(main, ["hint", "4HPwATDgc/ABMA", "3-1", "--top", "2", "--net", "fastbg"])
    assert r.exit_code == 0 and "networks: fastbg (fastbg's own)" in r.output, r.output
    r = runner.invoke(main, ["eval", "4HPwATDgc/ABMA", "--net", "fastbg", "--json", "-"])
    assert r.exit_code == 0 and '"networks": "fastbg' in r.output, r.output
    r = runner.invoke(main, ["eval", "4HPwATDgc/ABMA"])
    default = fastbg.default_net().name
    assert r.exit_code == 0 and f"networks: {default}" in r.output, r.output
    r = runner.invoke(main, ["hint", "4HPwATDgc/ABMA", "3-1", "--net", str(tmp_path / "none")])
    assert r.exit_code != 0 and "Traceback" not in r.output
    r = runner.invoke(main, ["hint", "4HPwATDgc/ABMA", "3-1", "--ply", "1", "--pruning-nets",
                             "--net", "fastbg"])
    assert r.exit_code == 0 and "networks: fastbg" in r.output, r.output
    bare = tmp_path / "bare.npz"                 # networks without pruning nets
    save_weights(bare, new_net(seed=1), "x")
    r = runner.invoke(main, ["hint", "4HPwATDgc/ABMA", "3-1", "--ply", "1", "--pruning-nets",
                             "--net", str(bare)])
    assert r.exit_code == 1 and "no pruning nets" in r.output, r.output


# ------------------------------------------------------------------ supervised rounds

def test_selfplay_positions_equal_the_reference(tmp_path):
    from fastbg.training.supervised import selfplay_positions
    from fastbg.benchmarks.classes import position_classes
    path = tmp_path / "nets.npz"
    net = new_net(seed=6)
    save_weights(path, net, "x")
    got = selfplay_positions(path, 3, per_game=4, seed=5)
    want = td_ref.selfplay_positions(5, 3, 4, load_net(path)[0], BO)
    np.testing.assert_array_equal(got, want)
    assert len(got) == 12 and "bear-off" not in position_classes(got)
    np.testing.assert_array_equal(selfplay_positions(path, 3, per_game=4, seed=5), got)
    with pytest.raises(ValueError):
        selfplay_positions(path, 3, per_game=0)


def test_a_fit_epoch_is_the_reference_steps_in_order():
    from fastbg.training import fit_kernels
    boards = np.stack([BOARDS["contact"], BOARDS["race"], BOARDS["crashed"], BOARDS["contact"]])
    targets = np.array([[0.6, 0.2, 0.01, 0.1, 0.0], [0.3, 0.0, 0.0, 0.0, 0.0],
                        [0.8, 0.5, 0.1, 0.05, 0.0], [0.55, 0.15, 0.0, 0.12, 0.0]], np.float32)
    order = np.array([2, 0, 1, 3, 0], np.int64)
    net = new_net(seed=8)
    ref = _copy(net)
    errors = np.zeros(len(order))
    fit_kernels.fit_epoch(boards, targets, order, 0.05, net, BO, errors)
    for i in order:
        td_ref.update(boards[i], targets[i], 0.05, ref, BO)
    _assert_same(net, ref, 2e-6)
    assert np.all(errors >= 0)


def test_fit_positions_learns_targets_and_keeps_a_record(tmp_path):
    from fastbg.benchmarks import PositionTarget, write_positions
    from fastbg.training.supervised import fit_positions, rollout_targets, selfplay_positions
    path = tmp_path / "nets.npz"
    save_weights(path, new_net(seed=3), "x", {"segments": []})
    boards = selfplay_positions(path, 20, per_game=2, seed=1)
    want = [0.8, 0.3, 0.02, 0.05, 0.001]
    targets = [PositionTarget(fastbg.position_id(b), want, None, {}) for b in boards]
    run = fit_positions(path, targets, epochs=6, alpha=0.05, seed=2, holdout=0.25)
    assert run.positions + run.held_out == len(boards) and run.held_out == 10
    assert run.holdout_error[-1] < run.holdout_error[0] / 2, run
    _, _, meta = load_net(path)
    assert [s["epoch"] for s in meta["segments"]] == [1, 2, 3, 4, 5, 6]
    # rollouts as targets, through a positions file
    many = fastbg.rollout_many(list(boards[:4]), trials=36, bot="pubeval", seed=1)
    file = tmp_path / "targets.jsonl"
    write_positions(file, rollout_targets(many))
    again = fit_positions(path, file, epochs=1, alpha=0.01, holdout=0)
    assert again.positions == 4 and np.isnan(again.holdout_error[0])
    with pytest.raises(ValueError, match="alpha"):
        fit_positions(path, file, alpha=-1)


def test_the_supervised_steps_of_the_script_end_to_end(tmp_path, monkeypatch, capsys):
    """positions, rollouts (resumable: a second call finds them done) and fit of a tiny
    generation 2, in a scratch training folder."""
    import shutil
    script = _training_script()
    monkeypatch.setattr(script, "TRAINING", str(tmp_path))
    monkeypatch.setattr(script, "LOG", str(tmp_path / "generations.json"))
    first = tmp_path / "gen1.npz"
    train_td(first, 500, alpha=0.1, seed=1, chunk=500)
    monkeypatch.setitem(script.GENERATIONS, 2, {
        "method": "supervised", "from": 1,
        "positions": {"games": 6, "per_game": 1, "seed": 2},
        "rollouts": {"trials": 36, "seed": 3, "truncate": 4, "chunk_size": 36},
        "fit": {"epochs": 2, "alpha": 0.01, "seed": 4, "holdout": 0.2}})
    assert script.main(["positions", "2"]) == 0
    assert script.main(["rollouts", "2"]) == 0
    assert script.main(["rollouts", "2"]) == 0                  # resumed: nothing left to do
    assert script.main(["fit", "2"]) == 0
    _, _, meta = load_net(tmp_path / "gen2.npz")
    assert [s["method"] for s in meta["segments"][-2:]] == ["supervised"] * 2
    log = __import__("json").loads((tmp_path / "generations.json").read_text())
    assert log["2"]["fit"]["positions"] + log["2"]["fit"]["held_out"] == 6
    # a generation of one class: only its positions, at most "keep" of them
    monkeypatch.setitem(script.GENERATIONS, 3, {
        "method": "supervised", "from": 2,
        "positions": {"games": 60, "per_game": 8, "seed": 5, "classes": ["race"], "keep": 7}})
    assert script.main(["positions", "3"]) == 0
    from fastbg.benchmarks import position_classes
    ids = [line for line in (tmp_path / "gen3-positions.txt").read_text().splitlines()
           if not line.startswith("#")]
    boards = np.stack([fastbg.board_from_position_id(p) for p in ids])
    assert 0 < len(ids) <= 7 and set(position_classes(boards)) == {"race"}
    shutil.rmtree(tmp_path)


def test_rollout_targets_are_made_consistent():
    from fastbg.training.supervised import consistent
    assert consistent([1.2, 0.5, 0.6, 0.1, -0.01]) == [1.0, 0.5, 0.5, 0.0, 0.0]
    assert consistent([0.53, 0.0, 0.0, -0.001, 0.0]) == [0.53, 0.0, 0.0, 0.0, 0.0]
    assert consistent([0.4, 0.1, 0.01, 0.7, 0.2]) == [0.4, 0.1, 0.01, 0.6, 0.2]


def test_info_tells_which_networks():
    import json
    from click.testing import CliRunner
    from fastbg.cli import main
    r = CliRunner().invoke(main, ["info", "--json"])
    weights = json.loads(r.output)["weights"]
    assert weights["fastbg"].endswith("fastbg.npz")
    assert weights["fastbg_version"].startswith("gen") and "games" in weights["fastbg_version"]
    assert weights["default"] == fastbg.default_net().name


# ------------------------------------------------------------------ pruning nets

@pytest.mark.parametrize("kind", sorted(BOARDS))
def test_a_pruning_net_step_is_the_chain_rule(kind):
    from fastbg.training.fit_kernels import prune_update
    from fastbg.training.weights import new_prune
    pnet = new_prune(seed=3)
    ref = pnet._replace(w1=pnet.w1.copy(), b1=pnet.b1.copy(), w2=pnet.w2.copy(),
                        b2=pnet.b2.copy())
    target = np.array([0.3, 0.1, 0.0, 0.2, 0.01], np.float32)
    k = prune_update(BOARDS[kind], target, 0.1, pnet, BO, K.scratch(), np.zeros(16, np.float32))
    assert k == td_ref.prune_update(BOARDS[kind], target, 0.1, ref, BO) >= 0
    _assert_same(pnet, ref, 2e-6)


def test_fit_prune_gives_the_networks_pruning_nets(tmp_path):
    from fastbg.evaluators.nets import GnubgNet, load_weights
    from fastbg.sim.bots import nply_bot
    from fastbg.training.supervised import candidate_positions, fit_prune, selfplay_positions
    from fastbg.training.weights import load_prune
    path = tmp_path / "nets.npz"
    train_td(path, 1000, alpha=0.1, seed=1, chunk=1000)
    assert load_weights(path).prune is None
    save_weights(tmp_path / "bare.npz", load_net(path)[0], "bare")
    boards = candidate_positions(selfplay_positions(path, 30, per_game=2, seed=1), seed=2)
    assert len(boards) > 200
    run = fit_prune(path, boards, epochs=4, alpha=0.05, seed=3)
    assert run.train_error[-1] < run.train_error[0], run
    weights = load_weights(path)
    assert weights.prune is not None and load_prune(path) is not None
    net = GnubgNet(weights)
    with pytest.raises(ValueError, match="no pruning nets"):
        nply_bot(1, net=fastbg.gnubg_net(tmp_path / "bare.npz"), prune=True)
    bot = nply_bot(1, net=net, prune=True)               # now possible
    res = fastbg.play(4, (bot, "pubeval"), seed=1)
    assert res.n_games == 4
    train_td(path, 1200, alpha=0.1, seed=1, chunk=200)   # TD keeps them
    assert load_prune(path) is not None


def _heldout_script():
    import importlib.util
    import pathlib
    spec = importlib.util.spec_from_file_location(
        "make_heldout_set",
        pathlib.Path(__file__).parent.parent / "scripts" / "make_heldout_set.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script


def test_the_heldout_set_is_made_resumed_and_scored(tmp_path, monkeypatch, capsys):
    """A tiny held-out set rolled out by bgsage: the classes asked for, in file order;
    a journal torn by a crash is resumed with the same figures; the judge step scores a
    network and GNU Backgammon 0-ply on it by class."""
    pytest.importorskip("bgsage", reason="bgsage (the held-out set's engine) is not "
                        "installed: pip install 'fastbg[bgsage]'")
    import json
    from fastbg.benchmarks import position_classes, read_benchmark
    made = _heldout_script()
    out = tmp_path / "h.jsonl"
    args = ["--contact", "2", "--crashed", "1", "--race", "2", "--trials", "12",
            "--truncate", "3", "--threads", "1", "--out", str(out)]
    assert made.main(args) == 0
    first = read_benchmark(str(out)).positions
    boards = np.stack([fastbg.board_from_position_id(p.position) for p in first])
    assert sorted(position_classes(boards)) == ["contact", "contact", "crashed", "race",
                                                "race"]
    assert [p.extra["class"] for p in first] == position_classes(boards)
    journal = tmp_path / "h.journal"
    lines = journal.read_text().splitlines()
    journal.write_text("\n".join(lines[:3]) + "\n" + lines[3][:20])   # torn by a crash
    assert made.main(args) == 0
    assert len(made.read_journal(str(journal), json.loads(lines[0])["settings"])) == 5
    again = read_benchmark(str(out)).positions
    assert [(p.position, p.probs) for p in again] == [(p.position, p.probs) for p in first]
    assert json.loads((tmp_path / "h.json").read_text())["counts"] == {
        "contact": 2, "crashed": 1, "race": 2}
    with pytest.raises(SystemExit, match="other settings"):
        made.main(args[:-4] + ["--seed", "9", "--out", str(out)])
    script = _training_script()
    monkeypatch.setattr(script, "HELDOUT", str(out))
    from fastbg.evaluators.own_nets import gnubg_installed
    errors = script.heldout_errors(fastbg.fastbg_net(), gnubg_installed())
    assert set(errors) == {"set", "contact", "crashed", "race"}
    if "gnubg_0ply" in errors["race"]:
        assert errors["race"]["ratio"] == pytest.approx(
            errors["race"]["error"] / errors["race"]["gnubg_0ply"], rel=1e-2)
    assert "held out, race" in capsys.readouterr().out


def test_move_scores_compile_the_one_path_a_net_takes():
    """Net.plain puts the batch kernel a net takes in its type: the vector path
    (evaluate_rows) for loaded nets of 128 hidden units with their product rows, the plain
    one for training nets (no product rows); ``scores`` compiles only that one, and scores
    a training net as evaluate_rows_plain does."""
    import pickle
    import numba
    loaded = load_weights(fastbg.fastbg_net().weights.path)
    trained = new_net(seed=3)
    assert loaded.arrays.plain is None and K.all_fast(loaded.arrays)
    assert isinstance(trained.plain, np.ndarray) and not K.all_fast(trained)
    assert pickle.loads(pickle.dumps(loaded.arrays)).plain is None
    # the kernel each Net type gets compiled into scores
    for net, used, unused in ((loaded.arrays, "evaluate_rows", "evaluate_rows_plain"),
                              (trained, "evaluate_rows_plain", "evaluate_rows")):
        impl = K._evaluate_rows_of_impl(numba.typeof(net), *([None] * 7))
        names = impl.__code__.co_names
        assert used in names and unused not in names, names
    rows = np.stack([-b[::-1] for b in BOARDS.values()]).astype(np.int8)
    scr = K.scratch()
    got = np.empty(len(rows))
    K.scores(rows, len(rows), trained, BO, scr, got)
    probs, cls = np.empty((len(rows), 5)), np.empty(len(rows), np.int8)
    K.evaluate_rows_plain(rows, 0, len(rows), True, trained, BO, scr, probs, cls)
    from fastbg.evaluators.search import mover_scores
    np.testing.assert_array_equal(got, mover_scores(probs))
