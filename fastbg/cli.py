"""The ``fastbg`` command line: ``fastbg --help`` lists the commands."""
import json
import os
import pathlib
import sys
import time

try:
    import click
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise SystemExit("the fastbg command needs the 'cli' extra: pip install 'fastbg[cli]'") from exc

import numba
import numpy as np


EXIT_INTERRUPTED = 130     # the shell's code for a command stopped by Ctrl-C (128 + SIGINT)


def _interrupted(done, total, unit, out_path, command_hint):
    """Say what an interrupted job kept and how to continue it; exit 130."""
    where = (f"; saved in {out_path}: run the same command with --resume to continue"
             if out_path else f"; nothing was saved: {command_hint}")
    click.echo(f"interrupted: {done:,} of {total:,} {unit} finished{where}", err=True)
    _exit_if_on_ray()
    raise SystemExit(EXIT_INTERRUPTED)


def _exit_if_on_ray():
    """After Ctrl-C, a process connected to Ray leaves at once with status 130: Ray's own
    shutdown at interpreter exit crashed after an interrupt (a C++ stack trace and status
    1, seen once under load in the test suite). The results file is already closed and
    synced; a local instance this process started goes with it (Ray's processes share the
    fate of the driver that started them)."""
    ray = sys.modules.get("ray")
    if ray is not None and getattr(ray, "is_initialized", lambda: False)():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(EXIT_INTERRUPTED)


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


class _Commands(click.Group):
    """The command group; a Ctrl-C that reaches it (before a job's chunk loop, e.g. while
    kernels compile) exits with status 130 like one seen by the job itself."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("interrupted before any work finished; nothing was saved", err=True)
            _exit_if_on_ray()
            raise SystemExit(EXIT_INTERRUPTED) from None


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="fastbg")
def main():
    """fastbg: exact backgammon rules and fast numba kernels.

    Positions are given as GNU Backgammon Position IDs (e.g. 4HPwATDgc/ABMA, the start).
    """


@main.command("moves")
@click.argument("position")
@click.argument("dice")
@click.option("--show/--no-show", default=False, help="Draw every resulting board.")
def moves_command(position, dice, show):
    """List the legal results of POSITION (a Position ID) with DICE (e.g. 3-1).

    Prints one line per result: its Position ID (the position still seen from the mover)
    and the move in GNU Backgammon's notation (e.g. 8/5 6/5; "Cannot move" when the roll
    cannot be played).

    \b
    Example:  fastbg moves 4HPwATDgc/ABMA 3-1
    """
    import fastbg
    from fastbg.position.notation import CANNOT_MOVE
    board = _parse_position(position)
    roll = _parse_dice(dice)
    try:
        results = fastbg.legal_moves(board, roll)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    click.echo(f"{len(results)} distinct results")
    for r, text in zip(results, fastbg.move_notations(board, results, roll)):
        click.echo(f"{fastbg.position_id(r)}  {text or CANNOT_MOVE}")
        if show:
            click.echo(fastbg.render(r) + "\n")


@main.command("demo")
@click.option("--repeat", default=5, show_default=True, type=click.IntRange(1, 100),
              help="Timed runs; the median is reported.")
@click.option("--threads", default=None, type=click.IntRange(1), help="Threads (default: all).")
@click.option("--games", default=100_000, show_default=True, type=click.IntRange(1),
              help="Games per bot pairing.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, writable=True),
              help="Also write the figures to this JSON file.")
def demo_command(repeat, threads, games, json_path):
    """Run the built-in demo: move generation, then 100,000 games per bot pairing.

    Move generation runs on the 2,000-position perft set: the result totals are checked
    against the published perft figures and (position, roll) pairs per second printed,
    median of --repeat runs. Then random-vs-random and pubeval-vs-pubeval games, games/s.
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


_RAY_DEFAULT = "default"     # --ray without an address


def _ray_option(f):
    """``--ray [ADDRESS]``: run the job's chunks as tasks on a Ray cluster."""
    return click.option(
        "--ray", "ray_address", is_flag=False, flag_value=_RAY_DEFAULT, default=None,
        metavar="[ADDRESS]",
        help="Run the chunks as tasks on a Ray cluster (needs pip install 'fastbg[ray]'): "
             "the results are bit-identical to a run on this machine, and --out, --resume "
             "and Ctrl-C work as without --ray (a file started either way resumes either "
             "way). ADDRESS: the head node's host:6379 or ray://host:10001, or "
             "'auto' (a cluster this machine has joined); without ADDRESS: RAY_ADDRESS, "
             "else a cluster started here with 'ray start', else a new local Ray "
             "instance on this machine's cores. Each task runs numba on its one CPU "
             "(--threads does not apply). Put --ray after POSITION, or write "
             "--ray=ADDRESS (docs/cluster.md).")(f)


def _backend(address):
    """The jobs' ``backend=`` argument from ``--ray``."""
    if address is None:
        return "local"
    from fastbg.distributed import RayCluster
    return RayCluster(None if address == _RAY_DEFAULT else address)


def _rules_options(cube_default, cube_help):
    """The rule options shared by ``play`` and ``tournament`` (money, match, cube)."""
    options = [
        click.option("--money", is_flag=True,
                     help="Money play with the cube (see the money options)."),
        click.option("--match", "match_length", type=click.IntRange(1), default=None,
                     help="Play whole matches to this many points (with the cube)."),
        click.option("--cube", "cube_text", default=cube_default, show_default=True,
                     help=cube_help),
        click.option("--jacoby/--no-jacoby", default=True, show_default=True,
                     help="Money: Jacoby rule."),
        click.option("--beavers", is_flag=True, help="Money: allow beavers."),
        click.option("--raccoons", is_flag=True, help="Money: allow raccoons (needs --beavers)."),
        click.option("--auto-doubles", default="0", show_default=True,
                     help="Money: automatic doubles on opening ties, at most this many "
                          "(0 = off, 'none' = no limit)."),
        click.option("--triple-on-66", is_flag=True,
                     help="Money: a 6-6 opening tie triples the stake (needs --auto-doubles)."),
        click.option("--max-cube", default="64", show_default=True,
                     help="Highest cube value, or 'none' for no limit."),
        click.option("--crawford/--no-crawford", default=True, show_default=True,
                     help="Match: Crawford rule."),
    ]

    def apply(f):
        for option in reversed(options):
            f = option(f)
        return f
    return apply


def _rules(money, match_length, jacoby, beavers, raccoons, auto_doubles, triple_on_66,
           max_cube, crawford):
    """MoneyRules, MatchRules or None (cubeless) from the shared options."""
    import fastbg
    if money and match_length:
        raise click.UsageError("choose --money or --match, not both")
    limit = _count_or_none(max_cube, "--max-cube")
    autos = _count_or_none(auto_doubles, "--auto-doubles")
    if match_length:
        return fastbg.MatchRules(match_length, crawford=crawford, max_cube=limit)
    if money:
        return fastbg.MoneyRules(jacoby=jacoby, beavers=beavers, raccoons=raccoons,
                                 auto_doubles=autos is None or autos > 0,
                                 auto_double_limit=None if autos is None else max(autos, 1),
                                 triple_on_66=triple_on_66, max_cube=limit)
    return None


def _count_or_none(text, option):
    """An integer option that may also be 'none' (no limit)."""
    if text.lower() in ("none", "unlimited"):
        return None
    try:
        return int(text)
    except ValueError:
        raise click.BadParameter(f"an integer or 'none', got {text!r}",
                                 param_hint=option) from None


@main.command("play")
@click.option("--bots", default="random,random", show_default=True,
              help="Two bots, comma-separated: random, pubeval, greedy (gnubg, gnubg-1ply, "
                   "gnubg-1ply-prune, gnubg-1ply-2x0.03 ... with the gnubg extra).")
@click.option("--games", default=100_000, show_default=True, type=click.IntRange(1),
              help="Number of games (of matches with --match).")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**64 - 1),
              help="Random seed: the same seed replays the same games.")
@click.option("--threads", default=None, type=click.IntRange(1), help="Threads (default: all).")
@click.option("--offset", default=0, show_default=True, type=click.IntRange(0),
              help="First game (match) index, to play one shard of a larger run.")
@click.option("--opening", type=click.Choice(["use", "reroll"]), default="use", show_default=True,
              help="First player plays the opening dice, or rolls afresh.")
@_rules_options(cube_default="race,race",
                cube_help="Cube strategies with --money/--match, comma-separated: never, race, "
                          "gnubg (Janowski on GNU Backgammon's networks), gnubg-1ply, "
                          "gnubg-2ply (on their n-ply probabilities), or an engine's own "
                          "cube action: gnubg-app, gnubg-app-1ply, gnubg-app-2ply, bgsage, "
                          "bgsage-2ply ... bgsage-4ply.")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Progress bar.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, writable=True),
              help="Write the summary as JSON.")
@click.option("--save", "save_path", type=click.Path(dir_okay=False, writable=True),
              help="Save every game's outcome (.npz, reload with fastbg.GameResults.load, "
                   "or fastbg.MatchResults.load with --match).")
@click.option("--out", "out_path", type=click.Path(dir_okay=False),
              help="Append the games to this results file as chunks finish (JSON lines), "
                   "to resume after Ctrl-C or a crash.")
@click.option("--resume", is_flag=True, help="Continue the games saved in --out.")
@_ray_option
def play_command(bots, games, seed, threads, offset, opening, money, match_length, cube_text,
                 jacoby, beavers, raccoons, auto_doubles, triple_on_66, max_cube, crawford,
                 progress, json_path, save_path, out_path, resume, ray_address):
    """Play games between two bots and print the summary.

    Cubeless money games by default; --money plays the cube under money rules, --match N
    whole matches to N points. Points are from the first bot's view. Ctrl-C stops within
    about a second, reports what finished (marked partial) and exits with status 130;
    with --out every finished chunk is already saved and --resume continues to exactly
    the figures of an uninterrupted run.

    \b
    Examples:
      fastbg play --bots pubeval,random --games 1000000 --seed 1 --threads 2
      fastbg play --bots pubeval,greedy --money --beavers --cube race,race
      fastbg play --bots pubeval,greedy --match 7 --games 10000
      fastbg play --bots gnubg,pubeval --games 100000 --out g.jsonl   (Ctrl-C, then --resume)
      fastbg play --bots pubeval,gnubg --games 10000000 --out g.jsonl --ray auto
    """
    import fastbg
    pair = _pair(bots, "--bots")
    cube = _cube_strategies(cube_text, None, False)
    if resume and not out_path:
        raise click.UsageError("--resume continues the file given by --out")
    t0 = time.perf_counter()
    try:
        rules = _rules(money, match_length, jacoby, beavers, raccoons, auto_doubles,
                       triple_on_66, max_cube, crawford)
        if match_length:
            res = fastbg.play_matches(games, match_length, pair, cube=cube, seed=seed,
                                      threads=threads, crawford=crawford,
                                      max_cube=rules.max_cube, opening=opening,
                                      match_offset=offset, progress=progress, out=out_path,
                                      resume=resume, backend=_backend(ray_address))
        else:
            res = fastbg.play(games, pair, seed=seed, threads=threads, progress=progress,
                              opening=opening, game_offset=offset, rules=rules,
                              cube=cube if money else None, out=out_path, resume=resume,
                              backend=_backend(ray_address))
    except (ValueError, TypeError, ImportError, FileExistsError, ConnectionError) as exc:
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
        res.save(save_path)
    if res.partial:
        unit = "matches" if match_length else "games"
        _interrupted(n, games, unit, out_path,
                     f"to play the rest, add --offset {offset + n} --games {games - n}")


@main.command("rollout")
@click.argument("position", required=False)
@click.option("--dice", default=None,
              help="Roll out the candidate moves of this roll (e.g. 3-1): a move rollout.")
@click.option("--moves", "moves_text", default=None,
              help="With --dice: the best N moves by hint (a number), or moves in notation "
                   "separated by ';' (default: every legal move).")
@click.option("--cube-decision", is_flag=True,
              help="Roll out the cube decision of the player on roll: no double and "
                   "double/take on common dice (money unless --match).")
@click.option("--positions", "positions_path", type=click.Path(exists=True, dir_okay=False),
              help="Roll out every position of this file (one Position ID or XGID a line; "
                   "blank lines and # comments skipped), one JSON line each in --out.")
@click.option("--trials", default=1296, show_default=True, type=click.IntRange(1),
              help="Number of trials (multiples of 1,296 use the quasi-random dice fully).")
@click.option("--bot", default=None,
              help="Bot playing both sides: random, pubeval, greedy, gnubg, gnubg-1ply ... "
                   "(an n-ply bot's name may carry a move filter and -prune: "
                   "gnubg-1ply-2x0.03-prune, gnubg-1ply-tiny) "
                   "[default: gnubg when its networks are installed, else pubeval]")
@click.option("--ply", type=click.IntRange(0, 3), default=None,
              help="Play with the gnubg networks at this ply (0: gnubg, 1: gnubg-1ply ...).")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**64 - 1))
@click.option("--threads", default=None, type=click.IntRange(1), help="Threads (default: all).")
@click.option("--rotate/--no-rotate", default=True, show_default=True,
              help="Quasi-random dice for the first two rolls.")
@click.option("--truncate", type=click.IntRange(0), default=None,
              help="Stop trials after this many plies and score them with --evaluator.")
@click.option("--vr", "variance_reduction", is_flag=True,
              help="Variance reduction (luck adjustment) with --evaluator.")
@click.option("--evaluator", default=None, type=click.Choice(["race", "gnubg", "gnubg-nn"]),
              help="Probabilities for truncation and variance reduction.")
@click.option("--money", is_flag=True, help="Also estimate the cubeful money equity.")
@click.option("--match", "match_length", type=click.IntRange(1), default=None,
              help="Also estimate the match-winning chance (an XGID gives the score).")
@click.option("--cube", "cube_text", default=None,
              help="Cube strategies after the first move, two names: never, race, gnubg, "
                   "gnubg-1ply, gnubg-2ply [default: the bot's for a cube decision with a "
                   "gnubg bot (gnubg-1ply with --ply 1 ...), else race,race]")
@click.option("--late", "late_text", default=None,
              help="K,BOT: from ply K of each trial on, BOT plays (e.g. --ply 1 --late 2,gnubg: "
                   "1-ply for two plies, then 0-ply).")
@click.option("--target-se", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Stop once the standard error (every candidate's, with --dice) is at "
                   "most this, checked between chunks (--trials is then the most).")
@click.option("--first-roll", type=click.Choice(["any", "opening"]), default="any",
              show_default=True,
              help="opening: the first roll of every trial has no doubles, as an opening "
                   "roll (GNU Backgammon's 'rollout as initial position').")
@click.option("--prune", type=click.FloatRange(min=0, min_open=True), default=None,
              help="With --dice: after each chunk, drop the moves more than this many "
                   "paired standard errors below the best (e.g. 4); the others play on.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False),
              help="Append results to this file as chunks finish (JSON lines).")
@click.option("--resume", is_flag=True, help="Continue the rollout saved in --out.")
@click.option("--chunk", "chunk_size", default=1296, show_default=True, type=click.IntRange(1),
              help="Trials per chunk: the unit saved to --out (part of the rollout's settings).")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Progress bar.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, writable=True),
              help="Write the estimates as JSON.")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False, writable=True),
              help="With --positions: also write one CSV row per position.")
@_ray_option
def rollout_command(position, dice, moves_text, cube_decision, positions_path, trials, bot,
                    ply, seed, threads, rotate, truncate, variance_reduction, evaluator, money,
                    match_length, cube_text, late_text, target_se, first_roll, prune,
                    out_path, resume,
                    chunk_size, progress, json_path, csv_path, ray_address):
    """Roll out POSITION (a gnubg Position ID or an XGID), a decision, or a file of them.

    Without --dice or --cube-decision: POSITION with the player on roll still to roll;
    prints the five cubeless probabilities, the cubeless equity and, with --money or
    --match, the cubeful estimate, each with its standard error. --dice rolls out the
    candidate moves of that roll on common dice (a table like GNU Backgammon's: equity,
    its error, the difference from the best and its paired error); --cube-decision rolls
    out no double and double/take. --positions FILE rolls out every position of a file.
    With --out the results are appended chunk by chunk; after Ctrl-C or a crash, --resume
    continues and gives exactly the figures of an uninterrupted run. Ctrl-C stops within
    about a second and exits with status 130.

    \b
    Examples:
      fastbg rollout 4HPwATDgc/ABMA --trials 100000
      fastbg rollout 4HPwATDgc/ABMA --dice 3-1 --moves 5
      fastbg rollout 4HPwATDgc/ABMA --dice 3-1 --trials 12960 --chunk 324 --prune 4
      fastbg rollout 4HPwATDgc/ABMA --cube-decision --trials 2592
      fastbg rollout --positions positions.txt --trials 1296 --out rollouts.jsonl
      fastbg rollout 4HPwATDgc/ABMA --trials 12960 --out r.jsonl   (Ctrl-C, then --resume)
      fastbg rollout "XGID=-BBABBBbB---c-----B-babcb-:0:0:1:00:2:1:0:5:10" --match 5
      fastbg rollout --positions positions.txt --out rollouts.jsonl --ray auto
    """
    import fastbg
    from fastbg.sim.bots import strongest_bot
    modes = sum(map(bool, (dice, cube_decision, positions_path)))
    if modes > 1:
        raise click.UsageError("choose one of --dice, --cube-decision and --positions")
    if (position is None) != bool(positions_path):
        raise click.UsageError("give a POSITION, or --positions FILE (not both)")
    if moves_text and not dice:
        raise click.UsageError("--moves needs --dice")
    if prune is not None and not dice:
        raise click.UsageError("--prune needs --dice")
    if money and match_length:
        raise click.UsageError("choose --money or --match, not both")
    if resume and not out_path:
        raise click.UsageError("--resume needs --out")
    if ply is not None:
        if bot is not None:
            raise click.UsageError("choose --bot or --ply, not both")
        bot = "gnubg" if ply == 0 else f"gnubg-{ply}ply"
    if bot is None:
        bot = strongest_bot()
        click.echo(f"bot: {bot} (the strongest installed; choose another with --bot)",
                   err=True)
    rules = None
    if money:
        rules = fastbg.MoneyRules()
    elif match_length:
        rules = fastbg.MatchRules(match_length)
    cube = _cube_strategies(cube_text, bot, cube_decision)
    common = dict(trials=trials, bot=bot, seed=seed, truncate=truncate, rotate=rotate,
                  variance_reduction=variance_reduction, evaluator=evaluator, threads=threads,
                  progress=progress, chunk_size=chunk_size, backend=_backend(ray_address),
                  first_roll=first_roll)
    if target_se is not None:
        common["target_se"] = target_se
    if late_text:
        k, _, late_bot = late_text.partition(",")
        if not k.strip().isdigit() or not late_bot.strip():
            raise click.BadParameter(f"K,BOT (e.g. 2,gnubg), got {late_text!r}",
                                     param_hint="--late")
        common["late"] = (int(k), late_bot.strip())
    t0 = time.perf_counter()
    try:
        if dice:
            moves = None
            if moves_text:
                moves = (int(moves_text) if moves_text.strip().isdigit()
                         else [m.strip() for m in moves_text.split(";")])
            res = fastbg.rollout_moves(position, _parse_dice(dice), moves=moves, rules=rules,
                                       cube=cube or ("race", "race"), out=out_path,
                                       resume=resume, prune=prune, **common)
        elif cube_decision:
            res = fastbg.rollout_cube(position, rules=rules, cube=cube, out=out_path,
                                      resume=resume, **common)
        elif positions_path:
            common.pop("progress")
            res = fastbg.rollout_many(pathlib.Path(positions_path), rules=rules,
                                      cube=cube or ("race", "race"), out=out_path,
                                      resume=resume, progress=progress, **common)
        else:
            res = fastbg.rollout(position, rules=rules, cube=cube or ("race", "race"),
                                 out=out_path, resume=resume, **common)
    except (ValueError, TypeError, ImportError, FileExistsError, ConnectionError) as exc:
        raise click.ClickException(str(exc)) from None
    except KeyboardInterrupt:
        _interrupted(0, trials, "trials", out_path, "run the command again, with --out "
                     "to keep what finishes")
    dt = time.perf_counter() - t0
    click.echo(res.table())
    done = len(res.records) if positions_path else res.trials
    unit = "positions" if positions_path else "trials"
    click.echo(f"time             {dt:.2f} s ({done / dt:,.1f} {unit}/s)")
    if json_path:
        d = res.to_dict()
        d["seconds"] = dt
        with open(json_path, "w") as f:
            json.dump(d, f, indent=2)
    if csv_path:
        if not positions_path:
            raise click.UsageError("--csv goes with --positions")
        res.to_csv(csv_path)
    if res.partial:
        total = res.settings["positions"] if positions_path else trials
        _interrupted(done, total, unit, out_path,
                     "run it again with --out FILE to keep what finishes")


def _cube_strategies(text, bot, cube_decision):
    """The --cube pair: names, "gnubg" for the gnubg networks' strategy ("gnubg-1ply" ...
    at that ply); None: the default (gnubg's for a cube decision with a gnubg bot)."""
    if text is None:
        return None
    import fastbg
    from fastbg.sim.bots import nply_ply
    names = _pair(text, "--cube")
    try:
        plies = [0 if n.lower() == "gnubg" else nply_ply(n) for n in names]
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--cube") from None
    if all(p is None for p in plies):
        return names
    try:
        net = fastbg.gnubg_net()
    except FileNotFoundError as exc:
        raise click.ClickException(str(exc)) from None
    return tuple(n if p is None else net.cube(ply=p) for n, p in zip(names, plies))


def _pair(text, option):
    pair = tuple(b.strip() for b in text.split(","))
    if len(pair) != 2 or not all(pair):
        raise click.BadParameter(f"give two names separated by a comma, got {text!r}",
                                 param_hint=option)
    return pair


@main.command("tournament")
@click.option("--bots", required=True,
              help="Two or more bots, comma-separated: random, pubeval, greedy (gnubg with "
                   "the gnubg extra; bgsage, gnubg-app with those engines).")
@click.option("--games", default=10_000, show_default=True, type=click.IntRange(1),
              help="Games per pair (matches with --match); even with duplicate play.")
@click.option("--luck-adjust", "luck_adjust", default=None, metavar="EVALUATOR",
              help="Also report luck-adjusted points per game, the luck of every roll "
                   "measured by this evaluator: gnubg or race (money games; slower: each "
                   "bot also chooses for all 21 rolls), or none. Default: gnubg when "
                   "another engine plays (gnubg-app..., bgsage...) and GNU Backgammon's "
                   "networks are installed, else none.")
@click.option("--speed/--no-speed", default=None,
              help="Time every bot's choices and report decisions/s (default: on when a "
                   "bot plays in lock-step anyway: gnubg-app, bgsage, gnubg-Nply...; "
                   "never with --match).")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**64 - 1),
              help="Random seed: the same seed replays the same tournament.")
@click.option("--threads", default=None, type=click.IntRange(1), help="Threads (default: all).")
@click.option("--duplicate/--no-duplicate", default=True, show_default=True,
              help="Play every deal twice, same dice, seats swapped.")
@_rules_options(cube_default="race",
                cube_help="Every bot's cube strategy with --money/--match: never or race, or "
                          "with --money an engine's own cube action: gnubg-app, "
                          "gnubg-app-1ply, gnubg-app-2ply, bgsage, bgsage-2ply ... "
                          "bgsage-4ply.")
@click.option("--chunk", "chunk_size", default=2000, show_default=True, type=click.IntRange(1),
              help="Games per pair between saves to --out.")
@click.option("--out", "out_path", type=click.Path(dir_okay=False, writable=True),
              help="Append results here as chunks finish (JSON lines), to resume or reload.")
@click.option("--resume", is_flag=True, help="Continue the tournament in --out.")
@click.option("--json", "json_path",
              type=click.Path(dir_okay=False, writable=True, allow_dash=True),
              help="Write every figure as JSON ('-': to stdout, instead of the table).")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, writable=True),
              help="Draw the points-per-game matrix as a PNG (needs the plot extra).")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Progress bar.")
@click.option("--mat", "mat_dir", type=click.Path(file_okay=False, writable=True),
              help="Write every pair's games as .mat files GNU Backgammon opens into this "
                   "directory (a money session per pair and seating, a file per match).")
@_ray_option
def tournament_command(bots, games, luck_adjust, speed, seed, threads, duplicate, money,
                       match_length, cube_text, jacoby, beavers, raccoons, auto_doubles,
                       triple_on_66, max_cube, crawford, chunk_size, out_path, resume,
                       json_path, plot_path, progress, mat_dir, ray_address):
    """Play a round robin between bots: ratings, points per game, win and gammon rates.

    Every pair plays --games games (cubeless money games by default; --money with the
    cube, --match N whole matches). With duplicate play (the default) each deal is played
    twice with the same dice and the seats swapped, which takes much of the luck out.
    With --out every finished chunk is saved at once: Ctrl-C or a crash loses at most a
    chunk, and --resume continues to the same figures an uninterrupted run gives.

    \b
    Examples:
      fastbg tournament --bots random,greedy,pubeval --games 20000
      fastbg tournament --bots greedy,pubeval,gnubg --games 100000 --out t.jsonl --plot t.png
      fastbg tournament --bots greedy,pubeval --match 7 --games 2000 --json -
      fastbg tournament --bots gnubg-app,bgsage,gnubg,pubeval --games 200
    """
    from fastbg.jobs.tournaments import TournamentResults, check_plot, tournament
    names = [b.strip() for b in bots.split(",")]
    if len(names) < 2 or not all(names):
        raise click.BadParameter(f"give two or more names separated by commas, got {bots!r}",
                                 param_hint="--bots")
    if resume and not out_path:
        raise click.UsageError("--resume continues the file given by --out")
    cubes = {c.strip() for c in cube_text.split(",")}
    if len(cubes) != 1:
        raise click.BadParameter("every bot plays the same cube strategy in a tournament",
                                 param_hint="--cube")
    try:
        if plot_path:
            check_plot()                 # fail now, not after the games
        rules = _rules(money, match_length, jacoby, beavers, raccoons, auto_doubles,
                       triple_on_66, max_cube, crawford)
        luck_adjust = _arena_luck(luck_adjust, names, match_length)
        if speed is None:            # free where a bot plays games in lock-step anyway
            from fastbg.sim.bots import resolve
            speed = not match_length and any(resolve(n).evaluator is not None for n in names)
        t0 = time.perf_counter()
        before = _games_saved(TournamentResults, out_path) if resume else 0
        res = tournament(names, games, seed, rules=rules, duplicate=duplicate,
                         cube=cubes.pop() if rules is not None else None,
                         out=out_path, resume=resume, progress=progress,
                         threads=threads, chunk_size=chunk_size, backend=_backend(ray_address),
                         record=bool(mat_dir), luck_adjust=luck_adjust, speed=speed)
        if mat_dir and res.records is not None:
            written = res.records.write_mat(mat_dir)
    except (ValueError, TypeError, ImportError, FileExistsError, ConnectionError) as exc:
        raise click.ClickException(str(exc)) from None
    dt = time.perf_counter() - t0
    if mat_dir and res.records is not None and json_path != "-":
        click.echo(f"{len(written)} .mat files written to {mat_dir}", err=True)
    played = res.games_played - before
    unit = "matches" if match_length else "games"
    if json_path == "-":
        click.echo(res.to_json())
    else:
        click.echo(res.table())
        click.echo(f"\ntime: {dt:.2f} s, {played:,} {unit} played ({played / dt:,.0f} {unit}/s)")
        if json_path:
            with open(json_path, "w") as f:
                f.write(res.to_json() + "\n")
    if plot_path:
        res.plot(plot_path)
    if res.partial:
        _interrupted(res.games_played, res.games_total, unit, out_path,
                     "run it again with --out FILE to keep the chunks that finish")


def _arena_luck(luck_adjust, names, match_length):
    """The tournament's luck evaluator: the one given (``none``: None), else ``"gnubg"``
    when another engine is among the bots (the arena: strength is compared luck-adjusted)
    in money games and GNU Backgammon's networks are installed, else None."""
    if luck_adjust is not None:
        return None if luck_adjust.strip().lower() == "none" else luck_adjust
    from fastbg.sim.bots import strongest_bot
    from fastbg.sim.engines import is_engine_name
    if match_length or not any(is_engine_name(n) for n in names):
        return None
    return "gnubg" if strongest_bot() == "gnubg" else None


def _games_saved(results_class, path):
    """Games already in a tournament file (0 when there is none to read)."""
    try:
        return results_class.load(path).games_played
    except (OSError, ValueError):
        return 0            # missing or unreadable: the tournament call says what is wrong


def _engine_position(text):
    """(board, XGIDInfo or None) of a Position ID or an XGID, or one clear error line."""
    from fastbg.position.ids import read_position
    try:
        return read_position(text)
    except (ValueError, TypeError) as exc:
        raise click.BadParameter(str(exc), param_hint="POSITION") from None


# The move filters of hint and analyse (fastbg.analysis.hints.FILTERS but None: --all).
_FILTER_NAMES = ("gnubg", "tiny", "narrow", "normal", "large", "huge")


class _MoveFilter(click.ParamType):
    """A move filter's name or "NxT" (at most N moves within T of the best)."""
    name = "filter"

    def get_metavar(self, param, ctx=None):
        return "[" + "|".join(_FILTER_NAMES) + "|NxT]"

    def convert(self, value, param, ctx):
        from fastbg.analysis.hints import check_filter
        if value in _FILTER_NAMES:
            return value
        try:
            return check_filter(value, 1)
        except ValueError as exc:
            self.fail(f"{exc}", param, ctx)


def _filter_option(help):
    """The --filter option of hint and analyse (a :class:`_MoveFilter`, default gnubg's)."""
    return click.option("--filter", "move_filter", default="gnubg", show_default=True,
                        type=_MoveFilter(), help=help)


@main.command("hint")
@click.argument("position")
@click.argument("dice", required=False)
@click.option("--ply", default=0, show_default=True, type=click.IntRange(0, 3),
              help="Look-ahead: 0 is GNU Backgammon's network alone, 1 and 2 its n-ply.")
@click.option("--all", "filter_none", is_flag=True,
              help="Evaluate every move at --ply (default: the best 0-ply ones, as gnubg).")
@_filter_option(help="Which 0-ply candidates --ply looks at: gnubg-nn's best 8 ('gnubg'), "
                   "one of GNU Backgammon's move filters (its default 'normal': at most 8 "
                   "within 0.16 of the best), or NxT: at most N within T (e.g. 2x0.03).")
@click.option("--pruning-nets", is_flag=True,
              help="Prune inside the look-ahead with GNU Backgammon's pruning nets, as it "
                   "does by default (faster; gnubg-nn does not).")
@click.option("--top", default=None, type=click.IntRange(1), help="Show only the best N moves.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, writable=True),
              help="Also write the ranked list as JSON to this file ('-': stdout only).")
@click.option("--show/--no-show", default=False, help="Draw the board before the move.")
def hint_command(position, dice, ply, filter_none, move_filter, pruning_nets, top, json_path,
                 show):
    """Rank the moves of POSITION with DICE (e.g. 3-1), best first, as GNU Backgammon's
    hint does: rank, depth, move, equity (cubeless, the mover's) and the difference to the
    best, then the mover's and the opponent's win, gammon and backgammon chances.

    POSITION is a Position ID or an XGID (which may carry the dice). An XGID of a match
    ranks by match-winning chance at its score and cube (docs/engine.md section 3).

    \b
    fastbg hint 4HPwATDgc/ABMA 3-1 --ply 1
    fastbg hint 4HPwATDgc/ABMA 3-1 --ply 1 --filter normal --pruning-nets
    """
    import fastbg
    board, info = _engine_position(position)
    if dice is not None:
        dice = _parse_dice(dice)
    elif info is None or info.dice is None:
        raise click.UsageError("give DICE (e.g. 3-1), or an XGID that has them")
    try:
        # an XGID goes in whole: a match's score and cube make the ranking cubeful
        h = fastbg.hint(position if info is not None else board, dice, ply=ply,
                        filter=None if filter_none else move_filter, prune=pruning_nets)
    except (ValueError, TypeError, ImportError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from None
    if top is not None:
        del h[top:]
    if json_path == "-":
        click.echo(json.dumps(h.to_dict()))
        return
    if show:
        click.echo(fastbg.render(board) + "\n")
    click.echo(h.text())
    if json_path:
        with open(json_path, "w") as f:
            f.write(json.dumps(h.to_dict()) + "\n")


@main.command("eval")
@click.argument("position")
@click.option("--ply", default=0, show_default=True, type=click.IntRange(0, 3),
              help="Look-ahead of the cubeless probabilities.")
@click.option("--match", "match_length", type=click.IntRange(1), default=None,
              help="Match play to this many points (default: money play).")
@click.option("--score", "score_text", default=None,
              help="Match score A-B: the player on roll's points, then the opponent's.")
@click.option("--cube", "cube_value", type=click.IntRange(1), default=None,
              help="Cube value (default 1, or the XGID's).")
@click.option("--owner", type=click.Choice(["centred", "on_roll", "opponent"]), default=None,
              help="Who owns the cube (default centred, or the XGID's).")
@click.option("--crawford", is_flag=True, help="This is the Crawford game (match play).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, writable=True),
              help="Also write the evaluation as JSON to this file ('-': stdout only).")
def eval_command(position, ply, match_length, score_text, cube_value, owner, crawford,
                 json_path):
    """Evaluate POSITION (a Position ID or an XGID, player on roll, before the roll): the
    cubeless probabilities and equity at --ply, then the cube decision (no double, double
    and take, double and pass; money equities or, with --match, match-winning chances)
    and the proper cube action, as GNU Backgammon's eval does.

    \b
    fastbg eval 4HPwATDgc/ABMA --ply 1
    fastbg eval 4HPwATDgc/ABMA --match 7 --score 2-4
    """
    import fastbg
    board, info = _engine_position(position)
    rules = fastbg.MatchRules(match_length) if match_length else None
    score = None
    if score_text is not None:
        if not match_length:
            raise click.UsageError("--score needs --match")
        try:
            score = tuple(int(x) for x in score_text.replace(",", "-").split("-"))
        except ValueError:
            score = ()
        if len(score) != 2:
            raise click.BadParameter(f"a score looks like 2-4, got {score_text!r}",
                                     param_hint="--score")
        if not all(0 <= x < match_length for x in score):
            raise click.BadParameter(f"each score of a {match_length}-point match is 0.."
                                     f"{match_length - 1}, got {score_text!r}",
                                     param_hint="--score")
    try:
        net = fastbg.gnubg_net()
        probs = net.probabilities(board, ply=ply)
        try:
            dec = fastbg.cube_decision(position if info is not None else board, rules=rules,
                                       score=score, cube=cube_value, owner=owner, ply=ply,
                                       net=net, crawford=crawford or None)
            why = None
        except ValueError as exc:
            dec, why = None, str(exc)
    except (ValueError, TypeError, ImportError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from None
    equity = float(fastbg.cube.formulas.equity_of(probs))
    record = {"position": position, "ply": ply, "probabilities": probs.tolist(),
              "cubeless_equity": equity,
              "cube_decision": None if dec is None else {
                  "no_double": dec.no_double, "double_take": dec.double_take,
                  "double_pass": dec.double_pass, "action": dec.action,
                  "x": dec.x, "match": dec.is_match},
              "no_cube_decision": why}
    if json_path == "-":
        click.echo(json.dumps(record))
        return
    p = probs
    click.echo(f"{ply}-ply cubeless: win {p[0]:.3f} (gammon {p[1]:.3f}, backgammon {p[2]:.3f}), "
               f"lose {1 - p[0]:.3f} (gammon {p[3]:.3f}, backgammon {p[4]:.3f}); "
               f"equity {equity:+.3f}")
    click.echo(dec.text() if dec is not None else f"no cube decision: {why}")
    if json_path:
        with open(json_path, "w") as f:
            f.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()


@main.command("analyse")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--ply", default=0, show_default=True, type=click.IntRange(0, 3),
              help="Look-ahead of the move and cube evaluations.")
@click.option("--luck-ply", default=0, show_default=True, type=click.IntRange(0, 3),
              help="Look-ahead of each roll's luck (GNU Backgammon's luck analysis: 0).")
@_filter_option(help="Which 0-ply candidates --ply looks at (GNU Backgammon analyses with "
                   "'large'; NxT: at most N within T); the move played and the best 0-ply "
                   "move always.")
@click.option("--pruning-nets", is_flag=True,
              help="Prune the moves' look-ahead with GNU Backgammon's pruning nets, as it does.")
@click.option("--weights", type=click.Path(exists=True),
              help="A weights file (e.g. GNU Backgammon's gnubg.weights) for the network.")
@click.option("--worst", default=10, show_default=True, type=click.IntRange(0),
              help="How many of the costliest decisions to list.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, writable=True),
              help="Also write the whole analysis (every move and cube decision) as JSON.")
def analyse_command(path, ply, luck_ply, move_filter, pruning_nets, weights, worst, json_path):
    """Analyse every decision of the match in PATH (a Jellyfish .mat file, or .sgf where
    fastbg reads them) as GNU Backgammon's "analyse match" does: per-player error totals
    and rates, luck, the luck-adjusted result, a PR figure, and the worst decisions with
    their Position IDs (docs/analysis.md).

    \b
    fastbg analyse match.mat --ply 0 --json analysis.json
    """
    import fastbg
    try:
        if path.lower().endswith(".sgf"):
            reader = getattr(fastbg, "read_sgf", None)
            if reader is None:
                raise click.ClickException("this fastbg reads no .sgf files yet: export the "
                                           "match as .mat (GNU Backgammon: export match mat)")
            record = reader(path)
        else:
            record = fastbg.read_mat(path)
        net = fastbg.gnubg_net(path=weights) if weights else None
        a = fastbg.analyse(record, ply=ply, net=net, luck_ply=luck_ply, filter=move_filter,
                           prune=pruning_nets)
    except click.ClickException:
        raise
    except (ValueError, TypeError, OSError, ImportError, UnicodeDecodeError) as exc:
        raise click.ClickException(f"{path}: {exc}") from None
    click.echo(a.table(worst=worst))
    if json_path:
        a.save(json_path)
