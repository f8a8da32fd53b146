"""GNU Backgammon's networks in fastbg's numba kernels against gnubg-nn, side by side.

    python scripts/bench_gnubgnet.py [--repeat 3] [--positions 200000] [--games 8000]
                                     [--pubeval-games 20000] [--json out.json]

Three measurements, all in one run. The two speed comparisons are repeated ``--repeat``
times, fastbg and gnubg-nn alternating within each repetition (the machine is shared and
its speed drifts), and the medians of the rates and of the per-repetition ratios are
reported:

1. Evaluations per second on the same distinct positions (candidate results met in games,
   seen from the player on roll): fastbg.gnubg_net() on 1 and 2 threads against
   ``gnubg_nn.probabilities(board, 0)`` called once per position (each position once, so
   gnubg-nn's evaluation cache does not help). Target: at least 10x on two threads.
2. 0-ply cubeless rollout of the opening position, games per second: fastbg.jobs.rollouts with
   the ``"gnubg"`` bot (the networks inside the game kernel) on two threads against gnubg-nn
   rolling out the same games with its own 0-ply player (``gnubg_nn.best_move(..., n=0)``
   each ply, the same move choices up to exact ties). gnubg-nn's ``rollout()`` entry point
   is also timed and its result printed; in gnubg-nn 1.1.0a11 it misreads its arguments
   (see the note printed), so it is not the reference. Target: at least 10x.
3. pubeval against the gnubg bot over cubeless games (published figure: -0.63 +- 0.03
   points per game for pubeval).
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

import numba

import fastbg
from fastbg.sim import game_kernels as _kplay
from fastbg.evaluators.gnubg_nn import _gnubg_rows, from_gnubg


def collect_positions(n, seed):
    """Distinct candidate results from pubeval-vs-pubeval games, player on roll."""
    seen = []
    total = [0]

    def capture(positions):
        seen.append(positions.copy())
        total[0] += len(positions)
        return np.random.default_rng(total[0]).random(len(positions))

    games = 50
    while total[0] < 2 * n:
        fastbg.play(games, (fastbg.EvaluatorBot(capture, "capture"), "pubeval"), seed=seed)
        games *= 2
    boards = np.concatenate(seen)
    boards = boards[(boards[:, 1:] > 0).any(axis=1)]          # the mover has checkers left
    boards = fastbg.flip(boards)                               # the opponent on roll
    boards = np.unique(boards, axis=0)
    rng = np.random.default_rng(seed)
    return boards[rng.permutation(len(boards))[:n]]


def bench_evals(net, boards, n_gnubg, rep=0):
    """Rates on ``boards`` (fastbg) and on the rep-th slice of n_gnubg of them (gnubg-nn:
    a fresh slice each repetition, so that its evaluation cache never holds them)."""
    import gnubg_nn
    out = {}
    net(boards[:1000])                                         # compile / warm up
    for th in (1, 2):
        with fastbg.threads(th):
            t = time.perf_counter()
            net(boards)
            dt = time.perf_counter() - t
        out[f"fastbg_{th}_thread"] = len(boards) / dt
    rows = _gnubg_rows(boards[rep * n_gnubg:(rep + 1) * n_gnubg]).tolist()
    prob = gnubg_nn.probabilities
    t = time.perf_counter()
    for r in rows:
        prob(r, 0)
    dt = time.perf_counter() - t
    out["gnubg_nn"] = len(rows) / dt
    out["ratio_2_threads"] = out["fastbg_2_thread"] / out["gnubg_nn"]
    return out


def gnubg_nn_game(rng, board):
    """One cubeless game from ``board`` (player on roll), gnubg-nn's 0-ply player both
    sides; returns the points won by the side first on roll (+-1, 2, 3)."""
    import gnubg_nn
    gb = _gnubg_rows(board[None]).tolist()[0]
    sign = 1
    while True:
        d = rng.integers(1, 7, 2)
        _moves, key = gnubg_nn.best_move(gb, int(d[0]), int(d[1]), 0, b=1)
        gb = [list(r) for r in gnubg_nn.board_from_position_key(key)]   # opponent on roll
        if not any(gb[0]):                     # the mover bore off his last checker
            mover_view = fastbg.flip(from_gnubg(np.array(gb)))
            return sign * int(_kplay.win_kind(mover_view))
        sign = -sign


def medians(runs):
    """Median of each numeric entry over the repetitions ``runs`` (dicts)."""
    keys = [k for k, v in runs[0].items()
            if isinstance(v, (int, float)) and all(k in r for r in runs)]
    return {k: float(np.median([r[k] for r in runs])) for k in keys}


def bench_rollout(net, games, gnubg_games, seed, rep=0, with_gnubg_rollout=True):
    out = {}
    fastbg.rollout(fastbg.START, trials=72, bot="gnubg", seed=seed)          # warm up
    with fastbg.threads(2):
        t = time.perf_counter()
        r = fastbg.rollout(fastbg.START, trials=games, bot="gnubg", seed=seed)
        dt = time.perf_counter() - t
    out["fastbg_games_per_s"] = games / dt
    out["fastbg_equity"] = r.equity
    out["fastbg_equity_se"] = r.equity_se
    # gnubg-nn's player rolls its own dice; a different stream each repetition (the same
    # games again would be answered from gnubg-nn's evaluation cache).
    rng = np.random.default_rng([seed, rep])
    t = time.perf_counter()
    pts = [gnubg_nn_game(rng, np.array(fastbg.START)) for _ in range(gnubg_games)]
    dt = time.perf_counter() - t
    out["gnubg_nn_player_games_per_s"] = gnubg_games / dt
    out["gnubg_nn_player_equity"] = float(np.mean(pts))
    out["ratio"] = out["fastbg_games_per_s"] / out["gnubg_nn_player_games_per_s"]
    if not with_gnubg_rollout:
        return out
    # gnubg-nn's own rollout() entry point, in a subprocess (it can crash).
    code = ("import time, gnubg_nn as g; t = time.perf_counter(); "
            f"r = g.rollout('4HPwATDgc/ABMA', ngames={gnubg_games}, n=0); "
            "print(time.perf_counter() - t, r[0] if isinstance(r[0], tuple) else r)")
    try:
        res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             timeout=600)
        dt_s, *rest = res.stdout.split(" ", 1)
        out["gnubg_nn_rollout_games_per_s"] = gnubg_games / float(dt_s)
        out["gnubg_nn_rollout_result"] = rest[0].strip() if rest else ""
    except (subprocess.SubprocessError, ValueError) as exc:
        out["gnubg_nn_rollout_error"] = repr(exc)
    return out


def bench_pubeval(games, seed):
    t = time.perf_counter()
    with fastbg.threads(2):
        res = fastbg.play(games, ("pubeval", "gnubg"), seed=seed)
    dt = time.perf_counter() - t
    s = res.summary()
    return {"games": games, "seconds": dt, "games_per_s": games / dt,
            "pubeval_points_per_game": s["points_per_game"],
            "ci95": s["points_per_game_ci95"], "gammon_rate": s["gammon_rate"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--positions", type=int, default=200_000)
    ap.add_argument("--gnubg-positions", type=int, default=50_000)
    ap.add_argument("--games", type=int, default=8000)
    ap.add_argument("--gnubg-games", type=int, default=600)
    ap.add_argument("--pubeval-games", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3,
                    help="repetitions of the two speed comparisons (medians are reported)")
    ap.add_argument("--json", default=None, help="also write the results here")
    args = ap.parse_args()

    net = fastbg.gnubg_net()
    report = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                          "numba_threads": numba.config.NUMBA_NUM_THREADS}}
    boards = collect_positions(args.positions, args.seed)
    n_gnubg = min(args.gnubg_positions, len(boards) // args.repeat)
    evals = []
    rolls = []
    for rep in range(args.repeat):
        evals.append(bench_evals(net, boards, n_gnubg, rep))
        rolls.append(bench_rollout(net, args.games, args.gnubg_games, args.seed, rep,
                                   with_gnubg_rollout=rep == 0))
    report["repeats"] = {"evaluations_per_s": evals, "rollout_opening_0ply": rolls}
    report["evaluations_per_s"] = medians(evals)
    report["rollout_opening_0ply"] = {**rolls[0], **medians(rolls)}
    report["pubeval_vs_gnubg"] = bench_pubeval(args.pubeval_games, args.seed)

    e = report["evaluations_per_s"]
    r = report["rollout_opening_0ply"]
    p = report["pubeval_vs_gnubg"]
    print(f"medians of {args.repeat} repetitions (each ratio: the median of the "
          f"repetitions' ratios)")
    print(f"evaluations/s   fastbg 1 thread {e['fastbg_1_thread']:,.0f}   2 threads "
          f"{e['fastbg_2_thread']:,.0f}   gnubg-nn {e['gnubg_nn']:,.0f}   "
          f"ratio (2 threads) {e['ratio_2_threads']:.1f}x")
    print(f"rollout games/s fastbg (2 threads) {r['fastbg_games_per_s']:,.0f}   gnubg-nn 0-ply "
          f"player {r['gnubg_nn_player_games_per_s']:,.1f}   ratio {r['ratio']:.1f}x   "
          f"(equities {r['fastbg_equity']:+.3f} / {r['gnubg_nn_player_equity']:+.3f})")
    if "gnubg_nn_rollout_games_per_s" in r:
        print(f"                gnubg_nn.rollout(): {r['gnubg_nn_rollout_games_per_s']:,.0f} "
              f"games/s, result {r['gnubg_nn_rollout_result']} (not a 0-ply rollout of the "
              f"opening: gnubg-nn 1.1.0a11 misreads rollout()'s arguments)")
    print(f"pubeval vs gnubg {p['games']:,} games: {p['pubeval_points_per_game']:+.4f} points "
          f"per game (95% CI {p['ci95'][0]:+.4f} .. {p['ci95'][1]:+.4f}), "
          f"{p['games_per_s']:,.0f} games/s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1, default=float)


if __name__ == "__main__":
    main()
