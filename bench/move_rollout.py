"""Move rollouts, side by side in one run: fastbg's rollout of five candidates against
GNU Backgammon's 0-ply player.

Workload: the five best moves of the opening 3-1 (by ``fastbg.hint``), rolled out with
the gnubg bot (its networks in fastbg's kernels), cubeless, on common dice: plain, and
with variance reduction (the gnubg evaluator). Reported per setting: trials/s (one trial
= one game of one candidate), the mean standard error of the candidates' equities and
the variance-time product (SE squared x seconds, lower is better: which setting pays).
The peers, measured in the same run: gnubg-nn's 0-ply player (``gnubg_nn.best_move(...,
n=0)`` both sides, one core, games from the position after the best move), and, when
installed (the ``peers`` extra), bgsage's rollout (``bgbot_cpp.create_rollout`` with its
default networks and its raw-net decisions, ``decision_ply=1`` in its numbering), on the
same five candidates with the same trials and threads, with and without its variance
reduction. Targets (issue 12): 10x the gnubg-nn player, 3x bgsage at equal depth.

The same at 1-ply (checker play looking one roll ahead, plain: variance reduction takes the
in-kernel bots only): fastbg's "gnubg-1ply" bot (gnubg-nn's rule: the best 8 by 0-ply, every
reply scored by the full network), its "gnubg-1ply-prune" bot (GNU Backgammon's defaults:
its Normal move filter, its pruning nets in the look-ahead), gnubg-nn's player at ``n=1``
and bgsage's rollout with its "2ply" decisions (``decision_ply=2``, gnubg's 1-ply), fewer
trials. bgsage's ``filter_max_moves`` and ``filter_threshold`` do not reach its trials'
decisions (measured: 1, 8 and 20 moves gave the same results and times): its trials
choose their moves with a filter of their own, fixed in its source (rollout.cpp: at most 2
moves within 0.03 of the best raw-net equity look ahead, none when only the best is
within), and its look-ahead scores every reply with the full network, without pruning.
So the equal setting is fastbg's "gnubg-1ply-2x0.03" (the same filter, no pruning; the
"1-ply, bgsage's filter" row); "gnubg-1ply-2x0.03-prune" adds GNU Backgammon's pruning.

    python -m bench.move_rollout --repeat 3
    python -m bench.move_rollout --quick
"""
import argparse
import sys
import time

import numba
import numpy as np

import fastbg
from bench import harness, workloads
from bench.rollout import peer_contestant

QUICK = {"trials": 72, "vr_trials": 36, "peer_games": 5, "ply1_trials": 2,
         "ply1_peer_games": 1, "repeat": 1}
PEER0, PEER1 = "gnubg-nn 0-ply player", "gnubg-nn 1-ply player"
# fastbg's 1-ply bot with the move filter bgsage's rollouts use inside their trials
BGSAGE_FILTER_BOT = "gnubg-1ply-2x0.03"


def contestant(moves, trials, vr, threads, bot="gnubg"):
    def run(rep):
        t0 = time.perf_counter()
        r = fastbg.rollout_moves(fastbg.START, (3, 1), moves=moves, trials=trials,
                                 bot=bot, seed=rep, variance_reduction=vr,
                                 evaluator="gnubg" if vr else None, threads=threads)
        dt = time.perf_counter() - t0
        se = float(np.mean([row.equity_se for row in r]))
        return len(moves) * trials / dt, (se, se * se * dt)
    return run


def bgsage_contestant(boards, trials, vr, threads, decision_ply=1):
    """bgsage's rollout of each post-move board in ``boards`` (its boards are fastbg's:
    the mover's view after the move), ``trials`` each, its decisions at ``decision_ply``
    (its numbering: 1 is the raw network, gnubg's 0-ply): (trials/s, (mean SE, SE^2 x s))."""
    import bgsage
    from bgsage.batch import bgbot_cpp
    w = bgsage.default_weights()
    # Equal depth throughout: no "ultra-late" switch (create_rollout's default 2 half-moves;
    # bgsage's own analyzer passes 9999). Its move filter settings are left alone: they
    # do not change its trials' decisions (see the module).
    strategy = bgbot_cpp.create_rollout(w.strategy_type, w.weight_paths_list,
                                        w.hidden_sizes_list, n_trials=trials,
                                        ultra_late_threshold=9999,
                                        decision_ply=decision_ply,
                                        n_threads=threads, seed=1, enable_vr=vr)
    before = [int(x) for x in fastbg.START]
    rows = [[int(x) for x in b] for b in boards]

    def run(rep):
        strategy.set_seed(rep + 1)          # fresh dice each repetition, as for fastbg
        t0 = time.perf_counter()
        ses = [strategy.evaluate_board(b, before)["std_error"] for b in rows]
        dt = time.perf_counter() - t0
        se = float(np.mean(ses))
        return len(rows) * trials / dt, (se, se * se * dt)
    return run


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=1296, help="trials a move, plain (1,296)")
    ap.add_argument("--vr-trials", type=int, default=216,
                    help="trials a move with variance reduction (216)")
    ap.add_argument("--peer-games", type=int, default=100, help="gnubg-nn games (100)")
    ap.add_argument("--ply1-trials", type=int, default=36,
                    help="trials a move at 1-ply, fastbg and bgsage (36)")
    ap.add_argument("--ply1-peer-games", type=int, default=4,
                    help="gnubg-nn games at 1-ply (4)")
    ap.add_argument("--repeat", type=int, default=3, help="interleaved repetitions (3)")
    ap.add_argument("--threads", type=int, default=None, help="fastbg's threads (all)")
    args = harness.parse(ap, argv, QUICK)
    if not workloads.have_gnubg():
        print("gnubg-nn is not installed: nothing to measure (the gnubg bot needs its weights)")
        return 0
    threads = args.threads or numba.config.NUMBA_NUM_THREADS
    info = harness.machine("gnubg-nn")
    harness.print_machine(info, "fastbg move rollouts (5 candidates, common dice)")
    moves = [c.move for c in fastbg.hint(fastbg.START, (3, 1))[:5]]
    after = fastbg.flip(fastbg.parse_move(fastbg.START, moves[0], (3, 1)))
    runs = {"plain": contestant(moves, args.trials, False, threads),
            "variance reduction": contestant(moves, args.vr_trials, True, threads),
            PEER0: peer_contestant(fastbg.position_id(after), args.peer_games, 1),
            "1-ply plain": contestant(moves, args.ply1_trials, False, threads, "gnubg-1ply"),
            "1-ply pruned": contestant(moves, args.ply1_trials, False, threads,
                                       "gnubg-1ply-prune"),
            "1-ply, bgsage's filter": contestant(moves, args.ply1_trials, False, threads,
                                                 BGSAGE_FILTER_BOT),
            "same, pruned": contestant(moves, args.ply1_trials, False, threads,
                                       BGSAGE_FILTER_BOT + "-prune"),
            PEER1: peer_contestant(fastbg.position_id(after), args.ply1_peer_games, 1,
                                   ply=1)}
    bgsage_on = workloads.have_bgsage()
    if bgsage_on:
        boards = [fastbg.parse_move(fastbg.START, m, (3, 1)) for m in moves]
        runs["bgsage plain"] = bgsage_contestant(boards, args.trials, False, threads)
        runs["bgsage VR"] = bgsage_contestant(boards, args.vr_trials, True, threads)
        runs["bgsage 1-ply plain"] = bgsage_contestant(boards, args.ply1_trials, False,
                                                       threads, decision_ply=2)
    for name in ("plain", "variance reduction"):
        contestant(moves, 36, name != "plain", threads)(0)            # compile
    contestant(moves, 1, False, threads, "gnubg-1ply")(0)
    for bot in ("gnubg-1ply-prune", BGSAGE_FILTER_BOT, BGSAGE_FILTER_BOT + "-prune"):
        contestant(moves, 1, False, threads, bot)(0)
    workloads.gnubg_nn_games(fastbg.position_id(after), 1, np.random.default_rng(0))
    samples, extra = harness.interleaved_with_estimates(runs, args.repeat)
    median = harness.medians(samples)
    print(f"\nmedians of {args.repeat} interleaved repetitions; fastbg on {threads} threads, "
          "the peer on one core")
    print(f"{'setting':24} {'trials/s':>9}  {'range':<22} {'mean SE':>8} {'SE^2 x s':>10} "
          f"{'vs peer':>8}" + (f" {'vs bgsage':>10}" if bgsage_on else ""))
    rows = []
    # fastbg against its peers at the same depth and setting, from the medians of this run
    same = {"plain": "bgsage plain", "variance reduction": "bgsage VR",
            "1-ply plain": "bgsage 1-ply plain", "1-ply pruned": "bgsage 1-ply plain",
            "1-ply, bgsage's filter": "bgsage 1-ply plain", "same, pruned": "bgsage 1-ply plain"}
    for key, xs in samples.items():
        se, vt = extra[key] if key not in (PEER0, PEER1) else (float("nan"),) * 2
        peer = median[PEER1 if "1-ply" in key or key == "same, pruned" else PEER0]
        vs = median[key] / median[same[key]] if bgsage_on and key in same else None
        print(f"{key:24} {harness.fmt_rate(median[key]):>9}  {harness.spread(xs):<22} "
              f"{se:8.4f} {vt:10.2e} {median[key] / peer:7.1f}x"
              + ("" if vs is None else f" {vs:9.1f}x"))
        rows.append({"setting": key, "trials_per_s": median[key], "samples": xs,
                     "mean_se": se, "variance_time": vt, "ratio_vs_peer": median[key] / peer,
                     "ratio_vs_bgsage": vs})
    print("(variance-time product: the last repetition's mean SE squared times its seconds; "
          "'vs peer': against gnubg-nn's player at the same ply)")
    harness.finish(info, args.json, {"options": vars(args), "moves": moves, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
