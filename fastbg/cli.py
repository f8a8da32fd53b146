"""The ``fastbg`` command line: ``fastbg --help`` lists the commands."""
import json
import time

try:
    import click
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise SystemExit("the fastbg command needs the 'cli' extra: pip install 'fastbg[cli]'") from exc

import numba
import numpy as np


def _parse_dice(text):
    try:
        d1, d2 = (int(x) for x in text.replace(",", "-").split("-"))
    except ValueError:
        raise click.BadParameter(f"dice look like 3-1 or 6,6; got {text!r}") from None
    return d1, d2


def _parse_position(text):
    import fastbg
    try:
        return fastbg.board_from_position_id(text)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="fastbg")
def main():
    """fastbg: exact backgammon rules and fast numba kernels.

    Positions are given as GNU Backgammon Position IDs (e.g. 4HPwATDgc/ABMA, the start).
    """


@main.command()
@click.argument("position")
@click.argument("dice")
@click.option("--show/--no-show", default=False, help="Draw every resulting board.")
def moves(position, dice, show):
    """List the legal results of POSITION (a Position ID) with DICE (e.g. 3-1).

    Prints one Position ID per result (the position still seen from the mover).

    \b
    Example:  fastbg moves 4HPwATDgc/ABMA 3-1
    """
    import fastbg
    board = _parse_position(position)
    try:
        results = fastbg.legal_moves(board, _parse_dice(dice))
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    click.echo(f"{len(results)} distinct results")
    for r in results:
        click.echo(fastbg.position_id(r))
        if show:
            click.echo(fastbg.render(r) + "\n")


@main.command()
@click.option("--repeat", default=5, show_default=True, type=click.IntRange(1, 100),
              help="Timed runs; the median is reported.")
@click.option("--threads", default=None, type=click.IntRange(1), help="Threads (default: all).")
@click.option("--games", default=100_000, show_default=True, type=click.IntRange(1),
              help="Games per bot pairing.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, writable=True),
              help="Also write the figures to this JSON file.")
def demo(repeat, threads, games, json_path):
    """Run the built-in demo: move generation, then 100,000 games per bot pairing.

    Move generation runs on the 2,000-position perft set: the result totals are checked
    against the published perft figures and (position, roll) pairs per second printed,
    median of --repeat runs. Then random-vs-random and pubeval-vs-pubeval games, games/s.
    """
    import fastbg
    from fastbg.workloads import PERFT_TOTALS, perft_pairs

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
        "first_call_s": round(warm, 3),
        "median_s": round(med, 5),
        "pairs_per_s": round(len(boards) / med),
    }
    click.echo(f"move generation, {figures['workload']} ({figures['pairs']:,} pairs)")
    click.echo(f"  distinct results  {got:,} (published total {want:,}: "
               f"{'agrees' if got == want else 'DISAGREES'})")
    click.echo(f"  threads           {figures['threads']}")
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


def _max_cube(text):
    if text.lower() in ("none", "unlimited"):
        return None
    try:
        value = int(text)
    except ValueError:
        raise click.BadParameter(f"a positive integer or 'none', got {text!r}") from None
    return value


@main.command()
@click.option("--bots", default="random,random", show_default=True,
              help="Two bots, comma-separated: random, pubeval, greedy (gnubg with the gnubg extra).")
@click.option("--games", default=100_000, show_default=True, type=click.IntRange(1),
              help="Number of games (of matches with --match).")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**64 - 1),
              help="Random seed: the same seed replays the same games.")
@click.option("--threads", default=None, type=click.IntRange(1), help="Threads (default: all).")
@click.option("--offset", default=0, show_default=True, type=click.IntRange(0),
              help="First game (match) index, to play one shard of a larger run.")
@click.option("--opening", type=click.Choice(["use", "reroll"]), default="use", show_default=True,
              help="First player plays the opening dice, or rolls afresh.")
@click.option("--money", is_flag=True, help="Money play with the cube (see the money options).")
@click.option("--match", "match_length", type=click.IntRange(1), default=None,
              help="Play whole matches to this many points (with the cube).")
@click.option("--cube", "cube_text", default="race,race", show_default=True,
              help="Cube strategies with --money/--match: never or race, comma-separated.")
@click.option("--jacoby/--no-jacoby", default=True, show_default=True, help="Money: Jacoby rule.")
@click.option("--beavers", is_flag=True, help="Money: allow beavers.")
@click.option("--raccoons", is_flag=True, help="Money: allow raccoons (needs --beavers).")
@click.option("--auto-doubles", default=0, show_default=True, type=click.IntRange(0),
              help="Money: automatic doubles on opening ties, at most this many (0 = off).")
@click.option("--max-cube", default="64", show_default=True,
              help="Highest cube value, or 'none' for no limit.")
@click.option("--crawford/--no-crawford", default=True, show_default=True,
              help="Match: Crawford rule.")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Progress bar.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, writable=True),
              help="Write the summary as JSON.")
@click.option("--save", "save_path", type=click.Path(dir_okay=False, writable=True),
              help="Save every game's outcome (.npz, reload with fastbg.GameResults.load).")
def play(bots, games, seed, threads, offset, opening, money, match_length, cube_text, jacoby,
         beavers, raccoons, auto_doubles, max_cube, crawford, progress, json_path, save_path):
    """Play games between two bots and print the summary.

    Cubeless money games by default; --money plays the cube under money rules, --match N
    whole matches to N points. Points are from the first bot's view. Ctrl-C stops early
    and reports what finished (marked partial).

    \b
    Examples:
      fastbg play --bots pubeval,random --games 1000000 --seed 1 --threads 2
      fastbg play --bots pubeval,greedy --money --beavers --cube race,race
      fastbg play --bots pubeval,greedy --match 7 --games 10000
    """
    import fastbg
    pair = _pair(bots, "--bots")
    if money and match_length:
        raise click.UsageError("choose --money or --match, not both")
    cube = _pair(cube_text, "--cube")
    t0 = time.perf_counter()
    try:
        limit = _max_cube(max_cube)
        if match_length:
            res = fastbg.play_matches(games, match_length, pair, cube=cube, seed=seed,
                                      threads=threads, crawford=crawford, max_cube=limit,
                                      opening=opening, match_offset=offset, progress=progress)
        else:
            rules = None
            if money:
                rules = fastbg.MoneyRules(jacoby=jacoby, beavers=beavers, raccoons=raccoons,
                                          auto_doubles=auto_doubles > 0,
                                          auto_double_limit=max(auto_doubles, 1),
                                          max_cube=limit)
            res = fastbg.play(games, pair, seed=seed, threads=threads, progress=progress,
                              opening=opening, game_offset=offset, rules=rules,
                              cube=cube if money else None)
    except (ValueError, TypeError, ImportError) as exc:
        raise click.ClickException(str(exc)) from None
    dt = time.perf_counter() - t0
    n = len(res)
    click.echo(res.table())
    click.echo(f"time             {dt:.2f} s ({n / dt:,.0f} {'matches' if match_length else 'games'}/s)")
    if json_path:
        summary = res.summary()
        summary["seconds"] = dt
        summary["offset"] = offset
        with open(json_path, "w") as f:
            json.dump(summary, f, indent=2)
    if save_path:
        if match_length:
            raise click.UsageError("--save keeps per-game outcomes; it does not apply to --match")
        res.save(save_path)


def _pair(text, option):
    pair = tuple(b.strip() for b in text.split(","))
    if len(pair) != 2 or not all(pair):
        raise click.BadParameter(f"give two names separated by a comma, got {text!r}",
                                 param_hint=option)
    return pair


if __name__ == "__main__":
    main()
