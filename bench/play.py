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

    python -m bench.play --repeat 3 --json play.json
    python -m bench.play --quick          # smoke run
"""
import argparse
import os
import time
from importlib.util import find_spec

import numba

from bench import harness, workloads

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
QUICK = {"games": 2_000, "openspiel_games": 50, "pgx_batch": 16, "repeat": 2,
         "min_time": 0.05}
QUICK_FLAT_SIZES = (1_000, 2_000, 4_000)


def fastbg_name(bot, threads, n):
    return f"fastbg {bot} {threads} thread{'s' if threads > 1 else ''}" + (
        f" {n:.0e}".replace("e+0", "e") if n is not None else "")


# -- contestants: each is (run, check); run() plays and returns its raw result, check(result)
# -- returns the number of games (raising AssertionError when the result is not sane).

def fastbg_contestant(bot, threads, n, seed):
    return (lambda: workloads.play_fastbg(n, bot, threads, seed),
            lambda res: workloads.check_play(res, n))


def openspiel_contestant(n, seed):
    return (lambda: workloads.play_openspiel(n, seed),
            lambda returns: workloads.check_openspiel(returns, n))


def pgx_contestant(batch, seed):
    import jax
    import jax.numpy as jnp
    import numpy as np
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
    ap.add_argument("--quick", action="store_true",
                    help="smoke-size run (" + ", ".join(f"--{k.replace('_', '-')} {v}"
                                                      for k, v in QUICK.items())
                         + f", flatness at {', '.join(map(str, QUICK_FLAT_SIZES))} games): "
                         "too small for the targets")
    ap.add_argument("--json", metavar="PATH", help="also write the figures to PATH as JSON")
    args = ap.parse_args(argv)
    if args.quick:
        for k, v in QUICK.items():
            setattr(args, k, v)
        if args.full:
            ap.error("--quick and --full exclude each other")
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    for opt in ("games", "openspiel_games", "pgx_batch"):
        if getattr(args, opt) < 1:
            ap.error(f"--{opt.replace('_', '-')} must be at least 1")

    # pgx is benchmarked on JAX's CPU backend, even on a machine with an accelerator.
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    info = harness.machine("open_spiel", "pgx", "jax", "jaxlib")
    harness.print_machine(info, "fastbg game play: whole games from the opening position, "
                                "cubeless")
    have_openspiel = find_spec("pyspiel") is not None
    have_pgx = find_spec("pgx") is not None
    if args.quick:
        print("--quick: smoke-size run, figures too small for the targets")

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
    sizes = list(QUICK_FLAT_SIZES if args.quick else FLAT_SIZES)
    for n in sizes:
        name = fastbg_name("random", top, None if n == args.games else n)
        flat_names[n] = name
        if name not in runs:
            runs[name] = fastbg_contestant("random", top, n, args.seed)
    if have_openspiel:
        runs[OPENSPIEL] = openspiel_contestant(args.openspiel_games, args.seed)
    else:
        print("OpenSpiel: skipped, open_spiel is not installed (pip install open_spiel); "
              "no ratios")
    if have_pgx and not args.no_pgx:
        runs[PGX] = pgx_contestant(args.pgx_batch, args.seed)
    elif not have_pgx:
        print("pgx: skipped, pgx is not installed (pip install pgx, which pulls jax)")

    # Warm up (compile) and check each contestant, then size its measurements.
    print("\nwarming up and checking every contestant ...", flush=True)
    workloads.play_fastbg(64, "random", 1)
    workloads.play_fastbg(64, "pubeval", top)
    harness.note_threading_layer(info)
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
        t1 = (first_call_s[name] if first_call_s[name] >= args.min_time
              else harness.measure(run))
        loops[name] = harness.loops_for(t1, args.min_time)
    print(f"numba threading layer: {info['numba_threading_layer']}")
    if PGX in runs:
        print(f"pgx: first call (jit compile + one batch) {first_call_s[PGX]:.1f} s")

    names = list(runs)
    t_all = time.perf_counter()
    samples = harness.interleaved(
        {name: (lambda rep, name=name: games[name] / harness.measure(runs[name][0],
                                                                      loops[name]))
         for name in names}, args.repeat)
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

    median = harness.medians(samples)
    peer = median.get(OPENSPIEL)
    print(f"\nmedian of {args.repeat} interleaved repetitions (min .. max in brackets); "
          f"{elapsed:.0f} s of timing")
    print(f"{'contestant':<32} {'games':>9} {'games/s':>10}  {'range':<22} {'vs OpenSpiel':>12}")
    for name in names:
        ratio = f"{median[name] / peer:11.2f}x" if peer else "n/a"
        print(f"{name:<32} {games[name]:>9,} {harness.fmt_rate(median[name]):>10}  "
              f"{harness.spread(samples[name]):<22} "
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
        print(f"  {label:<28} {harness.fmt_rate(value):>9}   >= {TARGETS[key]:,}    "
              f"{verdict(checks[key]['ok'])}")

    flat = {n: median[flat_names[n]] for n in sizes}
    flat_ratio = min(flat.values()) / max(flat.values())
    checks["flatness"] = {"value": flat_ratio, "target": TARGETS["flatness"],
                          "ok": flat_ratio >= TARGETS["flatness"],
                          "games_per_s": {str(n): r for n, r in flat.items()}}
    points = ", ".join(f"{n:.0e}".replace("e+0", "e") + f": {harness.fmt_rate(r)}"
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

    harness.finish(info, args.json, {
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
    })


if __name__ == "__main__":
    main()
