#!/usr/bin/env python3
"""Side-by-side game-play benchmark: fastbg.play against OpenSpiel (and pgx), in one run.

Contestants, each a whole game loop from the opening position to the end of the game:

* fastbg.play, random vs random and pubeval vs pubeval, on 1 thread and on 2 threads
  (when numba has them), ``--games`` games per measurement (default 100,000);
* OpenSpiel's backgammon through its C++ game loop: ``pyspiel.evaluate_bots`` with two
  ``make_uniform_random_bot`` bots on ``load_game("backgammon")``, one game per call, in
  this process on one core, ``--openspiel-games`` games per measurement (default 2,000);
* pgx's backgammon on JAX CPU: ``pgx.make("backgammon")``, ``jax.vmap`` over a batch of
  ``--pgx-batch`` games (default 1,024) with a uniformly random legal action per step, the
  whole batch jitted as one ``lax.while_loop`` that runs until every game has terminated.

Each contestant is warmed up (compiled) and its results checked first (every game
finished, game kinds 1..3). Each repetition then times every contestant once, in an order
rotated from one repetition to the next, so machine noise hits all of them alike; every
measurement plays the same games (fixed seeds). The table gives the median games/s and the
ratio to OpenSpiel.

Then: games/s flatness (fastbg random on the most threads, at 10^4, 10^5, 10^6 games per
call, and 10^7 with --full, that one measured once), and the 1 -> 2 thread speed-up for
random and pubeval, each with its target.

    python3 scripts/bench_play.py --repeat 3 --json play.json
"""
import argparse
import gc
import json
import math
import os
import platform
import statistics
import sys
import time
from importlib.metadata import PackageNotFoundError, version
from importlib.util import find_spec

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
# pgx is benchmarked on JAX's CPU backend, even on a machine with an accelerator.
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numba  # noqa: E402
import numpy as np  # noqa: E402

import fastbg  # noqa: E402

OPENSPIEL = "OpenSpiel random (C++ loop)"
PGX = "pgx random (JAX CPU, vmap)"
FLAT_SIZES = (10_000, 100_000, 1_000_000)
FULL_SIZE = 10_000_000
TARGETS = {
    "random_vs_openspiel": 30.0,     # fastbg random, 2 threads, over OpenSpiel's games/s
    "random_games_per_s": 25_000,    # fastbg random, 2 threads
    "pubeval_games_per_s": 20_000,   # fastbg pubeval, 2 threads
    "flatness": 0.85,                # slowest / fastest games/s over the flatness sizes
    "speedup_2_threads": 1.8,        # 2 threads over 1 thread, random and pubeval
}


def pkg_version(name):
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def loadavg():
    """The 1, 5 and 15 minute load averages (None where the OS has none): a busy machine
    shows here, and skews thread speed-ups first."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def header():
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": usable,
        "fastbg": pkg_version("fastbg"),
        "numba": numba.__version__,
        "numba_threads": numba.config.NUMBA_NUM_THREADS,
        "numba_threading_layer": None,
        "numpy": np.__version__,
        "open_spiel": pkg_version("open_spiel") if find_spec("pyspiel") else None,
        "pgx": pkg_version("pgx") if find_spec("pgx") else None,
        "jax": pkg_version("jax") if find_spec("jax") else None,
        "jaxlib": pkg_version("jaxlib") if find_spec("jaxlib") else None,
        "loadavg_start": loadavg(),
        "loadavg_end": None,
    }


def fastbg_name(bot, threads, n):
    return f"fastbg {bot} {threads} thread{'s' if threads > 1 else ''}" + (
        f" {n:.0e}".replace("e+0", "e") if n is not None else "")


# -- contestants: each is (run, check); run() plays and returns its raw result, check(result)
# -- returns the number of games (raising AssertionError when the result is not sane).

def fastbg_contestant(bot, threads, n, seed):
    def run():
        return fastbg.play(n, (bot, bot), seed=seed, threads=threads)

    def check(res):
        assert res.n_games == n and not res.partial, f"{res.n_games} games of {n}"
        assert res.kind.min() >= 1 and res.kind.max() <= 3, "game kinds outside 1..3"
        assert set(np.unique(res.winner)) <= {0, 1}, "winner outside 0..1"
        assert res.plies.min() >= 2, "a game shorter than two plies"
        return n
    return run, check


def openspiel_contestant(n, seed):
    import pyspiel
    game = pyspiel.load_game("backgammon")

    def run():
        bots = [pyspiel.make_uniform_random_bot(p, seed + p) for p in range(2)]
        evaluate, new = pyspiel.evaluate_bots, game.new_initial_state
        return [evaluate(new(), bots, seed + i) for i in range(n)]

    def check(returns):
        r = np.asarray(returns)
        assert r.shape == (n, 2), f"returns of shape {r.shape}"
        assert np.all(np.isin(np.abs(r[:, 0]), (1, 2, 3))), "an unfinished game (or bad kind)"
        assert np.all(r.sum(axis=1) == 0), "returns are not zero-sum"
        return n
    return run, check


def pgx_contestant(batch, seed):
    import jax
    import jax.numpy as jnp
    import pgx

    env = pgx.make("backgammon")
    init = jax.vmap(env.init)
    step = jax.vmap(env.step)

    @jax.jit
    def play_batch(key):
        key, k0 = jax.random.split(key)
        state = init(jax.random.split(k0, batch))
        # pgx zeroes the rewards of a terminated state on later steps: sum them as we go.
        total = jnp.zeros((batch, 2), jnp.float32)

        def unfinished(carry):
            return ~jnp.all(carry[0].terminated)

        def one_step(carry):
            s, total, key = carry
            key, ka, ks = jax.random.split(key, 3)
            logits = jnp.where(s.legal_action_mask, 0.0, -jnp.inf)
            action = jax.random.categorical(ka, logits, axis=-1)
            s = step(s, action, jax.random.split(ks, batch))
            return s, total + s.rewards, key

        s, total, _ = jax.lax.while_loop(unfinished, one_step, (state, total, key))
        return s.terminated, total

    key = jax.random.PRNGKey(seed)

    def run():
        return jax.block_until_ready(play_batch(key))

    def check(out):
        terminated, total = (np.asarray(a) for a in out)
        assert terminated.shape == (batch,) and terminated.all(), "a game did not terminate"
        assert np.all(np.isin(np.abs(total[:, 0]), (1, 2, 3))), "game kinds outside 1..3"
        assert np.all(total.sum(axis=1) == 0), "rewards are not zero-sum"
        return batch
    return run, check


def measure(run, loops):
    """Seconds per call of ``run`` over ``loops`` calls, garbage collector off."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        t = time.perf_counter()
        for _ in range(loops):
            run()
        return (time.perf_counter() - t) / loops
    finally:
        if was_enabled:
            gc.enable()


def fmt_rate(r):
    if r is None or not math.isfinite(r):
        return "n/a"
    return f"{r / 1e6:.3f} M" if r >= 1e6 else f"{r / 1e3:.2f} k" if r < 1e4 else f"{r / 1e3:.1f} k"


def verdict(ok):
    return "ok" if ok else "MISSED"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=100_000,
                    help="games per fastbg measurement (default 100,000)")
    ap.add_argument("--openspiel-games", type=int, default=2_000,
                    help="games per OpenSpiel measurement (default 2,000)")
    ap.add_argument("--pgx-batch", type=int, default=1_024,
                    help="games per pgx measurement, played as one vmapped batch (default 1,024)")
    ap.add_argument("--no-pgx", action="store_true", help="leave pgx out even when installed")
    ap.add_argument("--repeat", type=int, default=3,
                    help="timed repetitions of every contestant (default 3); the median is "
                         "reported")
    ap.add_argument("--min-time", type=float, default=0.5,
                    help="seconds one measurement lasts at least: shorter calls are repeated "
                         "within it (default 0.5)")
    ap.add_argument("--full", action="store_true",
                    help=f"add {FULL_SIZE:,} games to the flatness check (measured once; a "
                         "few minutes)")
    ap.add_argument("--seed", type=int, default=0, help="seed of every game played (default 0)")
    ap.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
    args = ap.parse_args(argv)
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    for opt in ("games", "openspiel_games", "pgx_batch"):
        if getattr(args, opt) < 1:
            ap.error(f"--{opt.replace('_', '-')} must be at least 1")

    info = header()
    print("fastbg game play: whole games from the opening position, cubeless")
    print(f"python {info['python']} on {info['platform']} ({info['processor']})")
    print(f"CPUs: {info['cpu_count']} ({info['cpus_usable']} usable); fastbg {info['fastbg']}; "
          f"numba {info['numba']} (threads: {info['numba_threads']}); numpy {info['numpy']}")
    if info["loadavg_start"]:
        print(f"load average (1, 5, 15 min): {info['loadavg_start']}")
    print(f"open_spiel {info['open_spiel'] or 'not installed'}; pgx {info['pgx'] or 'not installed'}"
          + (f" (jax {info['jax']}, jaxlib {info['jaxlib']}, CPU)" if info["pgx"] else ""))

    top = min(2, numba.config.NUMBA_NUM_THREADS)
    thread_counts = [1, 2] if top == 2 else [1]
    if top < 2:
        print("fastbg 2 threads: skipped, numba has 1 thread (set NUMBA_NUM_THREADS=2); "
              "no speed-up")

    # name -> (run, check, games per call); flatness points are fastbg random on `top`
    # threads, sharing the main measurement where the size is --games.
    runs = {}
    for bot in ("random", "pubeval"):
        for th in thread_counts:
            run, check = fastbg_contestant(bot, th, args.games, args.seed)
            runs[fastbg_name(bot, th, None)] = (run, check)
    flat_names = {}
    sizes = list(FLAT_SIZES)
    for n in sizes:
        name = fastbg_name("random", top, None if n == args.games else n)
        flat_names[n] = name
        if name not in runs:
            runs[name] = fastbg_contestant("random", top, n, args.seed)
    if info["open_spiel"]:
        runs[OPENSPIEL] = openspiel_contestant(args.openspiel_games, args.seed)
    else:
        print("OpenSpiel: skipped, open_spiel is not installed (pip install open_spiel); "
              "no ratios")
    if info["pgx"] and not args.no_pgx:
        runs[PGX] = pgx_contestant(args.pgx_batch, args.seed)
    elif not info["pgx"]:
        print("pgx: skipped, pgx is not installed (pip install pgx, which pulls jax)")

    # Warm up (compile) and check each contestant, then size its measurements.
    print("\nwarming up and checking every contestant ...", flush=True)
    fastbg.play(64, ("random", "random"), threads=1)
    fastbg.play(64, ("pubeval", "pubeval"), threads=top)
    info["numba_threading_layer"] = numba.threading_layer()
    games, loops, first_call_s = {}, {}, {}
    for name, (run, check) in runs.items():
        t = time.perf_counter()
        out = run()
        first_call_s[name] = time.perf_counter() - t
        try:
            games[name] = check(out)
        except AssertionError as e:
            raise SystemExit(f"{name}: results are not sane: {e}")
        if name == fastbg_name("random", top, None):
            plies = float(out.plies.mean())
        # A first call that already lasts --min-time (compilation included) needs no second.
        t1 = first_call_s[name] if first_call_s[name] >= args.min_time else measure(run, 1)
        loops[name] = max(1, math.ceil(args.min_time / t1))
    print(f"numba threading layer: {info['numba_threading_layer']}")
    if PGX in runs:
        print(f"pgx: first call (jit compile + one batch) {first_call_s[PGX]:.1f} s")

    names = list(runs)
    samples = {name: [] for name in names}
    t_all = time.perf_counter()
    for rep in range(args.repeat):
        k = rep % len(names)
        for name in names[k:] + names[:k]:
            samples[name].append(games[name] / measure(runs[name][0], loops[name]))
    elapsed = time.perf_counter() - t_all
    if args.full:
        print(f"--full: playing {FULL_SIZE:,} games once ...", flush=True)
        run, check = fastbg_contestant("random", top, FULL_SIZE, args.seed)
        t = time.perf_counter()
        res = run()
        dt = time.perf_counter() - t
        check(res)
        name = fastbg_name("random", top, FULL_SIZE)
        names.append(name)
        sizes.append(FULL_SIZE)
        flat_names[FULL_SIZE] = name
        samples[name] = [FULL_SIZE / dt]
        games[name], loops[name] = FULL_SIZE, 1

    median = {name: statistics.median(s) for name, s in samples.items()}
    info["loadavg_end"] = loadavg()
    peer = median.get(OPENSPIEL)
    print(f"\nmedian of {args.repeat} interleaved repetitions (min .. max in brackets); "
          f"{elapsed:.0f} s of timing"
          + (f"; load average now {info['loadavg_end']}" if info["loadavg_end"] else ""))
    print(f"{'contestant':<32} {'games':>9} {'games/s':>10}  {'range':<22} {'vs OpenSpiel':>12}")
    for name in names:
        ratio = f"{median[name] / peer:11.2f}x" if peer else "n/a"
        lo, hi = (fmt_rate(f(samples[name])) for f in (min, max))
        spread = f"[{lo} .. {hi}]" if len(samples[name]) > 1 else "(once)"
        print(f"{name:<32} {games[name]:>9,} {fmt_rate(median[name]):>10}  {spread:<22} "
              f"{ratio:>12}")

    # Targets.
    checks = {}
    r_top = median[fastbg_name("random", top, None)]
    p_top = median[fastbg_name("pubeval", top, None)]
    print(f"\ntargets (fastbg on {top} thread{'s' if top > 1 else ''}):")
    if peer:
        ratio = r_top / peer
        checks["random_vs_openspiel"] = {"value": ratio, "target": TARGETS["random_vs_openspiel"],
                                         "ok": ratio >= TARGETS["random_vs_openspiel"]}
        print(f"  random vs OpenSpiel          {ratio:8.1f}x   >= "
              f"{TARGETS['random_vs_openspiel']:.0f}x        "
              f"{verdict(checks['random_vs_openspiel']['ok'])}")
    else:
        print("  random vs OpenSpiel          n/a (OpenSpiel not installed)")
    for key, label, value in (("random_games_per_s", "random games/s", r_top),
                              ("pubeval_games_per_s", "pubeval games/s", p_top)):
        checks[key] = {"value": value, "target": TARGETS[key], "ok": value >= TARGETS[key]}
        print(f"  {label:<28} {fmt_rate(value):>9}   >= {TARGETS[key]:,}    "
              f"{verdict(checks[key]['ok'])}")

    flat = {n: median[flat_names[n]] for n in sizes}
    flat_ratio = min(flat.values()) / max(flat.values())
    checks["flatness"] = {"value": flat_ratio, "target": TARGETS["flatness"],
                          "ok": flat_ratio >= TARGETS["flatness"],
                          "games_per_s": {str(n): r for n, r in flat.items()}}
    points = ", ".join(f"{n:.0e}".replace("e+0", "e") + f": {fmt_rate(r)}"
                       for n, r in flat.items())
    print(f"  flat games/s (random)        {flat_ratio:8.2f}    slowest/fastest >= "
          f"{TARGETS['flatness']:.2f}  {verdict(checks['flatness']['ok'])}")
    print(f"      {points}")
    if top == 2:
        for bot in ("random", "pubeval"):
            s = median[fastbg_name(bot, 2, None)] / median[fastbg_name(bot, 1, None)]
            key = f"speedup_{bot}"
            checks[key] = {"value": s, "target": TARGETS["speedup_2_threads"],
                           "ok": s >= TARGETS["speedup_2_threads"]}
            print(f"  1 -> 2 threads, {bot:<12} {s:8.2f}x   >= "
                  f"{TARGETS['speedup_2_threads']}x       {verdict(checks[key]['ok'])}")
    print(f"  (random vs random: {plies:.1f} plies per game on average)")

    if args.json:
        report = {
            "machine": info,
            "options": vars(args),
            "games_per_call": games,
            "loops": loops,
            "first_call_s": first_call_s,
            "games_per_s": samples,
            "median_games_per_s": median,
            "ratio_vs_openspiel": {n: median[n] / peer for n in names} if peer else None,
            "flatness_sizes": {str(n): flat_names[n] for n in sizes},
            "targets": checks,
            "random_mean_plies": plies,
            "timing_s": elapsed,
        }
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
