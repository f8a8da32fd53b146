"""The commands about fastbg itself: demo (the main jobs on built-in defaults), selfcheck
(move generation against the published perft totals, with speeds) and info (what is
installed and where the compiled kernels are cached)."""
import json
import os
import platform
import sys
import time

import click
import numba
import numpy as np

from fastbg.cli.common import EXIT_INTERRUPTED
from fastbg.extras import EXTRAS, install_command, is_installed

DEMO_BOTS = ("random", "greedy", "pubeval")    # the bots every install has
DEMO_DICE = (3, 1)
DEMO_HINT_MOVES = 5          # the opening roll's best moves by hint, rolled out
DEMO_PLOT = "fastbg-demo.png"
NEXT_COMMANDS = (
    ("fastbg tournament --bots random,greedy,pubeval --games 100000 --plot t.png",
     "a longer tournament, with its plot"),
    ("fastbg rollout 4HPwATDgc/ABMA --dice 6-4 --trials 12960 --out r.jsonl",
     "a move rollout that Ctrl-C and --resume can stop and continue"),
    ("fastbg play --bots pubeval,greedy --money --games 100000",
     "money games with the cube"),
    ("fastbg moves 4HPwATDgc/ABMA 6-6", "the legal moves of a roll, in notation"),
    ("fastbg info", "what is installed, where the compiled kernels are cached"),
    ("fastbg selfcheck", "move generation against the published perft totals, with speeds"),
)


def _stop_if_interrupted(partial):
    """A job that Ctrl-C cut short (its result ``partial``) ends the demo: status 130."""
    if partial:
        click.echo("interrupted: the demo stops here (it saves nothing)", err=True)
        raise SystemExit(EXIT_INTERRUPTED)


@click.command("demo")
@click.option("--games", default=10_000, show_default=True, type=click.IntRange(2),
              help="Games per pair of bots in the tournament (duplicate: an even number).")
@click.option("--trials", default=1296, show_default=True, type=click.IntRange(36),
              help="Rollout trials of each candidate move.")
@click.option("--bot", default=None,
              help="The rollout's bot [default: the strongest installed: gnubg with the "
                   "gnubg extra, else fastbg's own networks].")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**64 - 1))
@click.option("--threads", default=None, type=click.IntRange(1), help="Threads (default: all).")
@click.option("--plot", "plot_path", default=DEMO_PLOT, show_default=True,
              type=click.Path(dir_okay=False, writable=True),
              help="Where the tournament's plot goes (needs matplotlib: the plot extra); "
                   "'none' for no plot.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, writable=True),
              help="Also write both results to this JSON file.")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Progress bars.")
def demo_command(games, trials, bot, seed, threads, plot_path, json_path, progress):
    """Show fastbg's main jobs on built-in defaults, in under a minute.

    \b
    1. A tournament of the bundled bots (random, greedy, pubeval) on duplicate dice:
       each deal is played twice with the seats swapped. Ratings, points per game,
       win and gammon rates; the plot is saved where matplotlib is installed.
    2. A rollout of the opening 3-1's candidate moves: each move's equity with its
       standard error and its difference from the best.
    Then the next commands to try.
    """
    import fastbg
    from fastbg.sim.bots import strongest_bot
    from fastbg.jobs.tournaments import tournament
    if games % 2:
        raise click.BadParameter("duplicate play needs an even number of games",
                                 param_hint="--games")
    if bot is None:
        bot = strongest_bot()
    t_all = time.perf_counter()
    click.echo(f"1/2  tournament: {', '.join(DEMO_BOTS)}, {games:,} games a pair on "
               "duplicate dice (cubeless money games)")
    t0 = time.perf_counter()
    tour = tournament(list(DEMO_BOTS), games, seed, duplicate=True, progress=progress,
                      threads=threads)
    click.echo(tour.table())
    click.echo(f"({time.perf_counter() - t0:.1f} s)")
    _stop_if_interrupted(tour.partial)
    if plot_path.lower() != "none":
        if is_installed("plot"):
            tour.plot(plot_path)
            click.echo(f"plot saved: {os.path.abspath(plot_path)}")
        else:
            click.echo(f"no plot: matplotlib is not installed ({install_command('plot')})")

    board = fastbg.START
    # The default networks (GNU Backgammon's, else fastbg's own) pick the five best moves
    # to roll out (hint), and the strongest bot plays the trials.
    n_moves = DEMO_HINT_MOVES
    click.echo(f"\n2/2  rollout: the opening {DEMO_DICE[0]}-{DEMO_DICE[1]}'s best {n_moves} "
               f"candidate moves by hint, {trials:,} trials each, bot {bot}")
    t0 = time.perf_counter()
    roll = fastbg.rollout_moves(board, DEMO_DICE, moves=n_moves, trials=trials, bot=bot,
                                seed=seed, threads=threads, progress=progress)
    click.echo(roll.table())
    click.echo(f"({time.perf_counter() - t0:.1f} s)")
    _stop_if_interrupted(roll.partial)
    click.echo(f"\ndemo done in {time.perf_counter() - t_all:.1f} s. Next, try:")
    width = max(len(c) for c, _ in NEXT_COMMANDS)
    for command, what in NEXT_COMMANDS:
        click.echo(f"  {command:<{width}}  {what}")
    if json_path:
        with open(json_path, "w") as f:
            json.dump({"tournament": json.loads(tour.to_json()), "rollout": roll.to_dict()}, f,
                      indent=2)


@click.command("selfcheck")
@click.option("--repeat", default=5, show_default=True, type=click.IntRange(1, 100),
              help="Timed runs; the median is reported.")
@click.option("--threads", default=None, type=click.IntRange(1), help="Threads (default: all).")
@click.option("--games", default=100_000, show_default=True, type=click.IntRange(1),
              help="Games per bot pairing.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, writable=True),
              help="Also write the figures to this JSON file.")
def selfcheck_command(repeat, threads, games, json_path):
    """Check move generation against the published perft totals, and time it.

    Move generation runs on the 2,000-position perft set: the total of distinct results is
    checked against the published figure and (position, roll) pairs per second printed,
    median of --repeat runs. Then random-vs-random and pubeval-vs-pubeval games, games/s.
    Exits 1 when the totals disagree.
    """
    import fastbg
    from fastbg.position.perft import PERFT_TOTALS, perft_pairs

    boards, dice = perft_pairs()
    t0 = time.perf_counter()
    _, offsets = fastbg.legal_moves_batch(boards, dice, threads=threads)
    warm = time.perf_counter() - t0
    want = sum(sum(v) for v in PERFT_TOTALS.values())
    got = int(offsets[-1])
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fastbg.legal_moves_batch(boards, dice, threads=threads)
        times.append(time.perf_counter() - t0)
    med = float(np.median(times))
    figures = {
        "workload": "perft: 2,000 positions x 21 rolls",
        "pairs": int(len(boards)),
        "results": got,
        "results_expected": want,
        "threads": threads or numba.get_num_threads(),
        "cpu": cpu_model(),
        "first_call_s": round(warm, 3),
        "median_s": round(med, 5),
        "pairs_per_s": round(len(boards) / med),
    }
    click.echo(f"move generation, {figures['workload']} ({figures['pairs']:,} pairs)")
    click.echo(f"  distinct results  {got:,} (published total {want:,}: "
               f"{'agrees' if got == want else 'DISAGREES'})")
    click.echo(f"  threads           {figures['threads']} on {figures['cpu']}")
    click.echo(f"  first call        {warm:.3f} s (includes loading compiled kernels)")
    click.echo(f"  median of {repeat}       {med * 1e3:.1f} ms = {figures['pairs_per_s']:,} pairs/s")
    fastbg.play(1000, ("random", "random"), seed=0, threads=threads)   # load the kernel
    for bots in (("random", "random"), ("pubeval", "pubeval")):
        t0 = time.perf_counter()
        res = fastbg.play(games, bots, seed=1, threads=threads)
        dt = time.perf_counter() - t0
        key = f"{bots[0]}_vs_{bots[1]}"
        figures[key] = {"games": games, "seconds": round(dt, 3), "games_per_s": round(games / dt),
                        "mean_plies": round(float(res.plies.mean()), 2),
                        "points_per_game": round(res.summary()["points_per_game"], 4)}
        click.echo(f"games, {bots[0]} vs {bots[1]}: {games:,} in {dt:.2f} s = "
                   f"{games / dt:,.0f} games/s (mean {res.plies.mean():.1f} plies)")
    if json_path:
        with open(json_path, "w") as f:
            json.dump(figures, f, indent=2)
    if got != want:
        raise SystemExit(1)


def cpu_model():
    """The CPU's model name as lscpu prints it, with its family and model numbers (a
    virtual machine often names only the vendor: "AMD EPYC (family 25, model 17)" is Zen 4),
    or the platform's processor string."""
    fields = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip().lower()
                if key in ("model name", "cpu family", "model") and key not in fields:
                    fields[key] = value.strip()
                if not line.strip() and fields:
                    break
    except OSError:
        pass
    if "model name" not in fields:
        return platform.processor() or platform.machine() or "unknown"
    if "cpu family" in fields and "model" in fields:
        return f"{fields['model name']} (family {fields['cpu family']}, model {fields['model']})"
    return fields["model name"]


def info_record():
    """What ``fastbg info`` prints, as a dict (also its --json)."""
    import llvmlite.binding as llvm
    import fastbg
    from fastbg.evaluators import cpu_variants as variants, simd
    from fastbg.evaluators.bearoff import _cache_file
    from fastbg.evaluators.nets import default_weights_path
    from fastbg.evaluators.own_nets import gnubg_installed, shipped_weights_path
    from fastbg.user_cache import cache_root, folder_size, kernel_cache_dir
    kernels = kernel_cache_dir()
    files, size = folder_size(kernels)
    weights = default_weights_path()
    return {
        "fastbg": fastbg.__version__,
        "location": os.path.dirname(fastbg.__file__),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "threads": numba.get_num_threads(),
        "numba_threading_layer": numba.config.THREADING_LAYER,
        "cache": str(cache_root()),
        "kernel_cache": {"path": str(kernels), "files": files, "bytes": size,
                         "from": "NUMBA_CACHE_DIR" if numba.config.CACHE_DIR else
                         ("FASTBG_CACHE" if os.environ.get("FASTBG_CACHE") else "default")},
        "bearoff_tables": {"path": str(_cache_file()), "present": _cache_file().is_file()},
        "extras": {e.name: {"installed": is_installed(e.name), "gives": e.gives,
                            "install": install_command(e.name)} for e in EXTRAS},
        "weights": {"gnubg": None if weights is None else str(weights),
                    "fastbg": shipped_weights_path() if os.path.isfile(shipped_weights_path())
                    else None, "fastbg_version": _own_version(),
                    "default": "gnubg" if gnubg_installed() else "fastbg"},
        "kernels": {"target_cpu": numba.config.CPU_NAME or llvm.get_host_cpu_name(),
                    "avx512": variants.HAS_AVX512,
                    "compress_store": variants.COMPRESS,
                    "hidden_passes": variants.HIDDEN_PASSES,
                    "top_bit": variants.TOP_BIT,
                    "point_adds": variants.POINT_ADDS,
                    "network_hidden_layer": f"{simd.LANES}-lane float32 vectors",
                    "sigmoid_table": "vector permutes (AVX-512)" if simd.TABLE_BY_PERMUTES
                    else "a load a lane (portable)",
                    "jit_disabled": bool(numba.config.DISABLE_JIT)},
    }


def _own_version():
    """The shipped networks' version and how they were made, in a few words (None when
    the file is missing or damaged)."""
    from fastbg.evaluators.fastbg_weights import read_weights
    from fastbg.evaluators.own_nets import shipped_weights_path
    try:
        with open(shipped_weights_path(), "rb") as f:
            version, meta, _ = read_weights(f.read(), shipped_weights_path())
    except (OSError, ValueError):
        return None
    return f"{version}: {meta.get('method', '?')}, {meta.get('games', 0):,} games"


@click.command("info")
@click.option("--json", "as_json", is_flag=True, help="Print the record as JSON (for scripts).")
@click.option("--clear-cache", is_flag=True,
              help="First remove this install's compiled kernels (after editing a kernel "
                   "module; the next calls compile afresh).")
def info_command(as_json, clear_cache):
    """What this fastbg is and has: versions, the CPU and threads, where the compiled
    kernels and bear-off tables are cached (and how much), which optional parts and
    network weights are installed (with the pip command of each missing one), and which
    kernel variant runs on this CPU."""
    if clear_cache:
        from fastbg.user_cache import clear_kernel_cache
        files, size = clear_kernel_cache()
        click.echo(f"removed {files:,} cached kernel files ({size / 2**20:.1f} MiB)", err=True)
    rec = info_record()
    if as_json:
        click.echo(json.dumps(rec, indent=2))
        return
    kc = rec["kernel_cache"]
    k = rec["kernels"]
    rows = [
        ("fastbg", f"{rec['fastbg']} ({rec['location']})"),
        ("python", f"{rec['python']} ({sys.executable})"),
        ("numpy, numba", f"{rec['numpy']}, {rec['numba']}"),
        ("cpu", f"{rec['cpu']}, {rec['cores']} cores"),
        ("threads", f"{rec['threads']} (numba; set NUMBA_NUM_THREADS or --threads)"),
        ("kernel cache", f"{kc['path']}: {kc['files']:,} files, {kc['bytes'] / 2**20:.1f} MiB"
                         f" (set by {kc['from']}; FASTBG_CACHE moves it)"),
        ("bear-off tables", f"{rec['bearoff_tables']['path']} "
                            f"({'present' if rec['bearoff_tables']['present'] else 'made on first use'})"),
        ("kernels", f"for {k['target_cpu']}, AVX-512 {'yes' if k['avx512'] else 'no'}; "
                    f"hidden sums in {k['hidden_passes']} "
                    f"pass{'es' if k['hidden_passes'] > 1 else ''} over the rows; "
                    f"network sigmoids by {k['sigmoid_table']}; input lists packed by "
                    f"the {k['compress_store']!r} compressing store; the pip loss's top bits by "
                    f"{k['top_bit']!r}; the points' rows by {k['point_adds']!r}"
                    + ("; JIT DISABLED" if k["jit_disabled"] else "")),
        ("gnubg weights", rec["weights"]["gnubg"] or f"none ({install_command('gnubg')})"),
        ("fastbg weights", (f"{rec['weights']['fastbg']} ({rec['weights']['fastbg_version']})"
                            if rec["weights"]["fastbg"] else "missing (a damaged install)")),
        ("default networks", f"{rec['weights']['default']} (hint, eval, cube decisions, "
                             "analysis, rollouts and the default cube use them)"),
    ]
    width = max(len(a) for a, _ in rows)
    for a, b in rows:
        click.echo(f"{a:<{width}}  {b}")
    click.echo("optional parts:")
    for name, e in rec["extras"].items():
        state = "installed" if e["installed"] else f"missing: {e['install']}"
        click.echo(f"  {name:<10} {state:<40} {e['gives']}")

