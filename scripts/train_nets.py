#!/usr/bin/env python3
"""Train, judge and ship fastbg's own networks, generation by generation (docs/training.md).

Each generation's settings are fixed below (GENERATIONS) and its networks kept in
training/genN.npz, fastbg's weights file, whose meta records the run (games, seed, each
segment's learning rate, time and learning curve). Every step resumes: `td` continues
from the file after Ctrl-C, a crash or the end of a session, and learns what a run never
stopped learns. training/generations.json records each generation's data, settings, time
and strength as the steps measure them.

    python3 scripts/train_nets.py --help
    python3 scripts/train_nets.py td 1                 # generation 1: TD(0) self-play
    python3 scripts/train_nets.py positions 2          # generation 2: positions of gen 1's games,
    python3 scripts/train_nets.py rollouts 2           #   rolled out by gen 1 (resumable),
    python3 scripts/train_nets.py fit 2                #   and fitted
    python3 scripts/train_nets.py prune 1              # its pruning nets (the -prune bots)
    python3 scripts/train_nets.py judge 1 --games 20000 # ppg against pubeval and gnubg, benchmark
    python3 scripts/train_nets.py cube 1 --games 20000  # with the cube against gnubg's; cube actions
    python3 scripts/train_nets.py heldout 1            # equity error on positions rolled out by bgsage
    python3 scripts/train_nets.py ship 1               # fastbg/data/nets/fastbg.npz
    python3 scripts/train_nets.py td 1 --out /tmp/g.npz --games 3000   # a small run elsewhere

Only fastbg makes the training data: self-play of the networks being trained (and of
earlier generations). GNU Backgammon's networks judge (an opponent, the benchmark set's
rollouts) and never teach.
"""
import argparse
import json
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
from bench.harness import cpu_model  # noqa: E402  (the repository's bench/, beside scripts/)

TRAINING = os.path.join(ROOT, "training")
LOG = os.path.join(TRAINING, "generations.json")
SHIPPED = os.path.join(ROOT, "fastbg", "data", "nets", "fastbg.npz")
# positions no network here has seen, rolled out by another engine (bgsage):
# scripts/make_heldout_set.py
HELDOUT = os.path.join(ROOT, "benchmarks", "heldout-bgsage.jsonl.gz")
# Each generation: how it learns. "schedule" is (first game, learning rate) pairs: the
# rate from that game on. "from": the generation whose networks it starts from (None:
# random weights from init_seed).
GENERATIONS = {
    1: {"method": "td0-self-play", "from": None, "init_seed": 0, "seed": 1, "hidden": 128,
        "games": 1_000_000, "schedule": [(0, 0.1), (400_000, 0.03), (800_000, 0.01)],
        "chunk": 5000,
        # pruning nets: taught the generation's own 0-ply figures on every result of a
        # roll of positions from its games (what the pruning step scores)
        "prune": {"games": 10_000, "per_game": 2, "seed": 5, "epochs": 4, "alpha": 0.05,
                  "hidden": 16}},
    # planned, not yet run: positions from generation 1's games, rolled out by it
    # (truncated after 10 plies, variance reduction), then fitted
    2: {"method": "supervised", "from": 1,
        "positions": {"games": 20_000, "per_game": 1, "seed": 2},
        "rollouts": {"trials": 216, "seed": 3, "truncate": 10, "chunk_size": 216},
        "fit": {"epochs": 10, "alpha": 0.01, "seed": 4, "holdout": 0.1}},
    # the race net alone (the largest gap to gnubg's: 8x its benchmark error rate):
    # race positions of generation 2's games, rolled out to the end by it, then fitted
    # (fit_positions teaches each position's class's net, so only the race net moves)
    3: {"method": "supervised", "from": 2,
        "positions": {"games": 20_000, "per_game": 8, "seed": 12, "classes": ["race"],
                      "keep": 15_000},
        "rollouts": {"trials": 216, "seed": 13, "truncate": None, "chunk_size": 216},
        "fit": {"epochs": 10, "alpha": 0.01, "seed": 14, "holdout": 0.1}},
}


def path_of(gen):
    return os.path.join(TRAINING, f"gen{gen}.npz")


def load_log():
    if os.path.exists(LOG):
        with open(LOG, encoding="utf-8") as f:
            return json.load(f)
    return {}


def save_log(log):
    os.makedirs(TRAINING, exist_ok=True)
    tmp = LOG + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(log, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, LOG)


def record(gen, key, value):
    log = load_log()
    entry = log.setdefault(str(gen), {"settings": GENERATIONS.get(gen)})
    entry[key] = value
    save_log(log)


def td(args):
    """TD(0) self-play of a generation, along its learning-rate schedule; resumable."""
    from fastbg.training.td import train_td
    spec = GENERATIONS[args.generation]
    out = args.out or path_of(args.generation)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    if spec["from"] is not None and not os.path.exists(out):
        shutil.copyfile(path_of(spec["from"]), out)
    total = args.games or spec["games"]
    bounds = [g for g, _ in spec["schedule"][1:]] + [total]
    t0 = time.perf_counter()
    run = None
    for (first, alpha), end in zip(spec["schedule"], bounds):
        end = min(end, total)
        if end <= first:
            break
        run = train_td(out, end, alpha=alpha, seed=spec["seed"], hidden=spec["hidden"],
                       init_seed=spec["init_seed"], chunk=spec["chunk"], progress=True,
                       version=f"gen{args.generation}")
        print(f"games {run.games:,}: alpha {alpha}, {run.games_per_second:,.0f} games/s, "
              f"|TD error| of the win output {run.td_error}")
        if run.partial:
            print("stopped: run the same command again to continue", file=sys.stderr)
            return 3
    if out == path_of(args.generation) and run is not None:
        record(args.generation, "td", {"games": run.games, "cpu": cpu_model(),
                                       "cpus": os.cpu_count(),
                                       "last_session_seconds": round(time.perf_counter() - t0)})
    return 0


def _files(gen):
    return {k: os.path.join(TRAINING, f"gen{gen}-{k}") for k in
            ("positions.txt", "rollouts.jsonl", "targets.jsonl.gz")}


def positions(args):
    """Positions from the games of the generation a supervised one starts from."""
    from fastbg.position.ids import position_id
    from fastbg.training.supervised import selfplay_positions
    spec = GENERATIONS[args.generation]["positions"]
    files = _files(args.generation) if args.out is None else {"positions.txt": args.out}
    games = args.games or spec["games"]
    boards = selfplay_positions(path_of(GENERATIONS[args.generation]["from"]), games,
                                spec["per_game"], spec["seed"])
    if "classes" in spec:                   # only positions of these classes
        from fastbg.benchmarks import position_classes
        boards = boards[[c in spec["classes"] for c in position_classes(boards)]]
    boards = boards[:spec.get("keep", len(boards))]
    with open(files["positions.txt"], "w", encoding="ascii") as f:
        f.write(f"# positions of generation {GENERATIONS[args.generation]['from']}'s games "
                f"(scripts/train_nets.py positions {args.generation}, {games} games)\n")
        f.writelines(position_id(b) + "\n" for b in boards)
    print(f"{len(boards):,} positions from {games:,} games: {files['positions.txt']}")
    return 0


def rollouts(args):
    """Roll the positions out with the generation they came from; resumable."""
    import pathlib
    import fastbg
    from fastbg.benchmarks import write_positions
    from fastbg.evaluators.nets import GnubgNet, load_weights
    from fastbg.training.supervised import rollout_targets
    gen = args.generation
    spec = dict(GENERATIONS[gen]["rollouts"])
    files = _files(gen)
    net = GnubgNet(load_weights(path_of(GENERATIONS[gen]["from"])))
    net.name = f"gen{GENERATIONS[gen]['from']}"
    many = fastbg.rollout_many(pathlib.Path(files["positions.txt"]), spec.pop("trials"),
                               spec.pop("seed"), bot=net, evaluator=net,
                               variance_reduction=True, out=files["rollouts.jsonl"],
                               resume=os.path.exists(files["rollouts.jsonl"]), progress=True,
                               **spec)
    if many.partial:
        print("stopped: run the same command again to continue", file=sys.stderr)
        return 3
    write_positions(files["targets.jsonl.gz"], rollout_targets(many))
    print(f"{len(many.records):,} targets: {files['targets.jsonl.gz']}")
    return 0


def fit(args):
    """Fit a copy of the generation it starts from to the rolled-out targets."""
    from fastbg.training.supervised import fit_positions
    gen = args.generation
    spec = GENERATIONS[gen]["fit"]
    out = path_of(gen)
    if not os.path.exists(out):
        shutil.copyfile(path_of(GENERATIONS[gen]["from"]), out)
    run = fit_positions(out, _files(gen)["targets.jsonl.gz"], **spec)
    print(f"{run.positions:,} positions ({run.held_out:,} held out), {run.seconds:.0f} s; "
          f"|error| of the win output by epoch: train {run.train_error}, "
          f"held out {run.holdout_error}")
    record(gen, "fit", {"positions": run.positions, "held_out": run.held_out,
                        "holdout_error": run.holdout_error, "seconds": round(run.seconds),
                        "cpu": cpu_model()})
    return 0


def prune(args):
    """Pruning nets for a generation, taught its own 0-ply figures (the -prune bots)."""
    from fastbg.training.supervised import candidate_positions, fit_prune, selfplay_positions
    spec = GENERATIONS[args.generation]["prune"]
    path = path_of(args.generation)
    t0 = time.perf_counter()
    boards = candidate_positions(selfplay_positions(path, spec["games"], spec["per_game"],
                                                    spec["seed"]), spec["seed"])
    run = fit_prune(path, boards, epochs=spec["epochs"], alpha=spec["alpha"],
                    seed=spec["seed"], hidden=spec["hidden"])
    seconds = time.perf_counter() - t0
    print(f"pruning nets: {len(boards):,} positions, |error| of the win output by epoch "
          f"{[round(e, 4) for e in run.train_error]}, {seconds:.0f} s")
    record(args.generation, "prune", {"positions": len(boards), "train_error":
                                      run.train_error, "seconds": round(seconds),
                                      "cpu": cpu_model()})
    return 0


def judge(args):
    """A generation's strength: ppg against pubeval and gnubg, benchmark error rates.

    Points per game against pubeval (and the gnubg bot where GNU Backgammon's networks are
    installed) on duplicate dice, the error rate on the shipped benchmark set, by class,
    and the mean cubeless equity error on the held-out set (positions rolled out by
    bgsage, scripts/make_heldout_set.py) by class, beside GNU Backgammon 0-ply's."""
    import fastbg
    from fastbg.evaluators.nets import GnubgNet, load_weights
    from fastbg.evaluators.own_nets import gnubg_installed
    path = args.nets or path_of(args.generation)
    net = GnubgNet(load_weights(path))
    net.name = f"gen{args.generation}"
    opponents = ["pubeval"] + (["gnubg"] if gnubg_installed() else [])
    result = {"nets": os.path.relpath(path, ROOT), "cpu": cpu_model(),
              "date": time.strftime("%Y-%m-%d", time.gmtime()), "games": args.games,
              "seed": args.seed}
    for opp in opponents:
        t0 = time.perf_counter()
        t = fastbg.tournament([net, opp], args.games, seed=args.seed, progress=True)
        pair = t.pairs[0]
        lo, hi = pair["points_per_game_ci95"]
        result[f"ppg_vs_{opp}"] = [round(pair["points_per_game"], 4), round(lo, 4), round(hi, 4)]
        print(f"against {opp}: {pair['points_per_game']:+.3f} ppg ({lo:+.3f} .. {hi:+.3f}), "
              f"{args.games:,} games, {time.perf_counter() - t0:.0f} s")
    score = fastbg.score_benchmark(None, net)
    result["benchmark"] = {"set": os.path.basename(str(score.source)),
                           "decisions": score.decisions,
                           "error_rate": round(score.error_rate, 2),
                           "by_class": {k: round(v["error_rate"], 2)
                                        for k, v in score.by_class.items()}}
    print(score.table())
    if os.path.exists(HELDOUT):
        result["heldout"] = heldout_errors(net, gnubg_installed())
    if args.nets is None:
        record(args.generation, "judged", result)
    return 0


def heldout_errors(net, with_gnubg):
    """The networks' mean |cubeless equity error| by class on the held-out set (positions
    rolled out by bgsage), beside GNU Backgammon 0-ply's and their ratio where installed."""
    import fastbg
    ours = fastbg.score_benchmark(HELDOUT, net).positions_by_class
    theirs = (fastbg.score_benchmark(HELDOUT, "gnubg").positions_by_class if with_gnubg
              else {})
    out = {"set": os.path.relpath(HELDOUT, ROOT)}
    for cls, v in ours.items():
        row = {"positions": v["positions"], "error": round(v["mean_abs_equity_error"], 5)}
        if cls in theirs:
            g = theirs[cls]["mean_abs_equity_error"]
            row.update(gnubg_0ply=round(g, 5), ratio=round(v["mean_abs_equity_error"] / g, 3))
        out[cls] = row
        print(f"held out, {cls:8} {v['positions']:4} positions: mean |equity error| "
              f"{row['error']:.4f}" + (f", gnubg 0-ply {row['gnubg_0ply']:.4f} "
                                       f"({row['ratio']:.2f}x)" if "ratio" in row else ""))
    return out


def heldout(args):
    """A generation's cubeless equity error on the held-out set, beside gnubg 0-ply's."""
    from fastbg.evaluators.nets import GnubgNet, load_weights
    from fastbg.evaluators.own_nets import gnubg_installed
    if not os.path.exists(HELDOUT):
        print(f"no held-out set at {os.path.relpath(HELDOUT, ROOT)}: make it with "
              "python3 scripts/make_heldout_set.py", file=sys.stderr)
        return 2
    path = args.nets or path_of(args.generation)
    net = GnubgNet(load_weights(path))
    result = heldout_errors(net, gnubg_installed())
    if args.nets is None:
        record(args.generation, "heldout", dict(result, cpu=cpu_model(), date=time.strftime(
            "%Y-%m-%d", time.gmtime())))
    return 0


def cube(args):
    """A generation's cube against GNU Backgammon's: money games and cube actions.

    Money games on duplicate dice (each deal played with the seats both ways): the
    generation's 0-ply bot with its Janowski cube against the gnubg bot with its own; and
    the 0-ply cube actions (no double, double/take, double/pass; money, centred cube) of
    both on the positions of the shipped benchmark set (positions from the gnubg bot's
    games, the player on roll before rolling) near the cube window: where GNU Backgammon's
    cubeful equities of no double and double are within 0.15 of each other."""
    import numpy as np
    import fastbg
    from fastbg.evaluators.nets import GnubgNet, load_weights
    path = args.nets or path_of(args.generation)
    net = GnubgNet(load_weights(path))
    net.name = f"gen{args.generation}"
    gnubg = fastbg.gnubg_net()
    rules = fastbg.MoneyRules()
    n = args.games // 2
    t0 = time.perf_counter()
    ab = fastbg.play(n, (net, "gnubg"), seed=args.seed, rules=rules, cube=(net.cube(), "gnubg"),
                     progress=True)
    ba = fastbg.play(n, ("gnubg", net), seed=args.seed, rules=rules, cube=("gnubg", net.cube()),
                     progress=True)
    deal = (np.asarray(ab.points, float) - np.asarray(ba.points, float)) / 2
    mean, half = deal.mean(), 1.96 * deal.std(ddof=1) / np.sqrt(len(deal))
    print(f"money games with the cube against gnubg: {mean:+.3f} ppg ({mean - half:+.3f} .. "
          f"{mean + half:+.3f}), {2 * n:,} games, {time.perf_counter() - t0:.0f} s")
    bset = fastbg.benchmarks.read_benchmark(fastbg.benchmarks.shipped_set_path())
    boards = np.stack([fastbg.board_from_position_id(d.position) for d in bset.decisions])
    theirs = fastbg.cube_decisions(boards, rules=rules, net=gnubg)
    near = [i for i, d in enumerate(theirs)
            if abs(d.no_double - min(d.double_take, d.double_pass)) <= 0.15][:args.positions]
    ours = fastbg.cube_decisions(boards[near], rules=rules, net=net)
    same = sum(o.action == theirs[i].action for o, i in zip(ours, near))
    print(f"cube actions equal to gnubg 0-ply's: {same} of {len(near)} positions near the cube "
          f"window ({same / max(1, len(near)):.1%})")
    if args.nets is None:
        record(args.generation, "cube", {
            "ppg_vs_gnubg_with_cube": [round(mean, 4), round(mean - half, 4),
                                       round(mean + half, 4)],
            "games": 2 * n, "seed": args.seed, "actions_equal": same,
            "positions": len(near), "cpu": cpu_model(),
            "date": time.strftime("%Y-%m-%d", time.gmtime())})
    return 0


def ship(args):
    """Copy a generation's networks into the package, where fastbg.fastbg_net() loads them."""
    shutil.copyfile(path_of(args.generation), SHIPPED)
    record(args.generation, "shipped", time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    print(f"shipped generation {args.generation}: {os.path.relpath(SHIPPED, ROOT)}")
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    sub = p.add_subparsers(dest="step", required=True)
    t = sub.add_parser("td", help=td.__doc__.split("\n")[0])
    t.add_argument("generation", type=int, choices=sorted(GENERATIONS))
    t.add_argument("--games", type=int, default=None,
                   help="stop at this many games in all (default: the generation's)")
    t.add_argument("--out", default=None, help="the networks' file (default training/genN.npz)")
    for step in (positions, rollouts, fit):
        q = sub.add_parser(step.__name__, help=step.__doc__.split("\n")[0])
        q.add_argument("generation", type=int,
                       choices=sorted(g for g, v in GENERATIONS.items()
                                      if v["method"] == "supervised"))
        if step is positions:
            q.add_argument("--games", type=int, default=None,
                           help="games to draw from (default: the generation's)")
            q.add_argument("--out", default=None, help="the positions file (default "
                           "training/genN-positions.txt)")
    q = sub.add_parser("prune", help=prune.__doc__.split("\n")[0])
    q.add_argument("generation", type=int,
                   choices=sorted(g for g, v in GENERATIONS.items() if "prune" in v))
    j = sub.add_parser("judge", help=judge.__doc__.split("\n")[0])
    j.add_argument("generation", type=int)
    j.add_argument("--nets", default=None, help="another weights file to judge")
    j.add_argument("--games", type=int, default=20000, help="games against each opponent")
    j.add_argument("--seed", type=int, default=17)
    h = sub.add_parser("heldout", help=heldout.__doc__.split("\n")[0])
    h.add_argument("generation", type=int)
    h.add_argument("--nets", default=None, help="another weights file to judge")
    c = sub.add_parser("cube", help=cube.__doc__.split("\n")[0])
    c.add_argument("generation", type=int)
    c.add_argument("--nets", default=None, help="another weights file to judge")
    c.add_argument("--games", type=int, default=20000, help="money games, both seatings")
    c.add_argument("--positions", type=int, default=1000,
                   help="positions near the cube window whose actions are compared")
    c.add_argument("--seed", type=int, default=19)
    s = sub.add_parser("ship", help=ship.__doc__.split("\n")[0])
    s.add_argument("generation", type=int)
    args = p.parse_args(argv)
    steps = {"td": td, "positions": positions, "rollouts": rollouts, "fit": fit,
             "prune": prune, "judge": judge, "heldout": heldout, "cube": cube, "ship": ship}
    return steps[args.step](args)


if __name__ == "__main__":
    sys.exit(main())
