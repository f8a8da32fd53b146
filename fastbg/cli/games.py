"""The commands that play games: play (two bots) and tournament (a round robin)."""
import json
import time

import click

from fastbg.cli.common import (interrupted, ray_option, backend, rules_options,
                               rules_from_options, cube_strategies, pair_option)
from fastbg.extras import MissingExtra


@click.command("play")
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
@rules_options(cube_default=None,
                cube_help="Cube strategies with --money/--match, comma-separated: never, race, "
                          "fastbg or gnubg (Janowski on fastbg's or GNU Backgammon's "
                          "networks), fastbg-1ply, gnubg-1ply, gnubg-2ply ... (on their n-ply "
                          "probabilities), or an engine's own cube action: gnubg-app, "
                          "gnubg-app-1ply, gnubg-app-2ply, bgsage, bgsage-2ply ... "
                          "bgsage-4ply [default: the default networks' for both players: "
                          "gnubg,gnubg where installed, else fastbg,fastbg].")
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
@ray_option
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
    from fastbg.sim.bots import strongest_bot
    pair = pair_option(bots, "--bots")
    cube = cube_strategies(cube_text or ",".join([strongest_bot()] * 2))
    if resume and not out_path:
        raise click.UsageError("--resume continues the file given by --out")
    t0 = time.perf_counter()
    try:
        rules = rules_from_options(money, match_length, jacoby, beavers, raccoons, auto_doubles,
                       triple_on_66, max_cube, crawford)
        if match_length:
            res = fastbg.play_matches(games, match_length, pair, cube=cube, seed=seed,
                                      threads=threads, crawford=crawford,
                                      max_cube=rules.max_cube, opening=opening,
                                      match_offset=offset, progress=progress, out=out_path,
                                      resume=resume, backend=backend(ray_address))
        else:
            res = fastbg.play(games, pair, seed=seed, threads=threads, progress=progress,
                              opening=opening, game_offset=offset, rules=rules,
                              cube=cube if money else None, out=out_path, resume=resume,
                              backend=backend(ray_address))
    except MissingExtra:     # one line and status 2, in the command group
        raise
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
        interrupted(n, games, unit, out_path,
                     f"to play the rest, add --offset {offset + n} --games {games - n}")


@click.command("tournament")
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
@rules_options(cube_default="race",
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
@ray_option
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
        rules = rules_from_options(money, match_length, jacoby, beavers, raccoons, auto_doubles,
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
                         threads=threads, chunk_size=chunk_size, backend=backend(ray_address),
                         record=bool(mat_dir), luck_adjust=luck_adjust, speed=speed)
        if mat_dir and res.records is not None:
            written = res.records.write_mat(mat_dir)
    except MissingExtra:     # one line and status 2, in the command group
        raise
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
        interrupted(res.games_played, res.games_total, unit, out_path,
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
