"""The rollout command: a position, a decision (moves or cube) or a file of positions."""
import json
import pathlib
import time

import click

from fastbg.cli.common import (interrupted, parse_dice, ray_option, backend, cube_strategies)
from fastbg.extras import MissingExtra


@click.command("rollout")
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
              help="Bot playing both sides: random, pubeval, greedy, fastbg, fastbg-1ply ..., "
                   "gnubg, gnubg-1ply ... "
                   "(an n-ply bot's name may carry a move filter and -prune: "
                   "gnubg-1ply-2x0.03-prune, gnubg-1ply-tiny) "
                   "[default: gnubg when its networks are installed, else fastbg]")
@click.option("--ply", type=click.IntRange(0, 3), default=None,
              help="Play with the default networks at this ply (0: gnubg, 1: gnubg-1ply ...; "
                   "fastbg, fastbg-1ply ... without GNU Backgammon's).")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**64 - 1))
@click.option("--threads", default=None, type=click.IntRange(1), help="Threads (default: all).")
@click.option("--rotate/--no-rotate", default=True, show_default=True,
              help="Quasi-random dice for the first two rolls.")
@click.option("--truncate", type=click.IntRange(0), default=None,
              help="Stop trials after this many plies and score them with --evaluator.")
@click.option("--vr", "variance_reduction", is_flag=True,
              help="Variance reduction (luck adjustment) with --evaluator.")
@click.option("--evaluator", default=None, type=click.Choice(["race", "fastbg", "gnubg", "gnubg-nn"]),
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
@ray_option
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
        family = strongest_bot()            # "gnubg", else "fastbg"
        bot = family if ply == 0 else f"{family}-{ply}ply"
    chosen = bot is None
    if chosen:
        bot = strongest_bot()
    rules = None
    if money:
        rules = fastbg.MoneyRules()
    elif match_length:
        rules = fastbg.MatchRules(match_length)
    cube = cube_strategies(cube_text)
    common = dict(trials=trials, bot=bot, seed=seed, truncate=truncate, rotate=rotate,
                  variance_reduction=variance_reduction, evaluator=evaluator, threads=threads,
                  progress=progress, chunk_size=chunk_size, backend=backend(ray_address),
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
            res = fastbg.rollout_moves(position, parse_dice(dice), moves=moves, rules=rules,
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
    except MissingExtra:     # one line and status 2, in the command group
        raise
    except (ValueError, TypeError, ImportError, FileExistsError, ConnectionError) as exc:
        raise click.ClickException(str(exc)) from None
    except KeyboardInterrupt:
        interrupted(0, trials, "trials", out_path, "run the command again, with --out "
                     "to keep what finishes")
    dt = time.perf_counter() - t0
    if chosen:      # said after the job: a job that cannot run ends in its one error line
        click.echo(f"bot: {bot} (the strongest installed; choose another with --bot)",
                   err=True)
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
        interrupted(done, total, unit, out_path,
                     "run it again with --out FILE to keep what finishes")
