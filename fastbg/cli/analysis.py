"""The engine's commands: moves (legal moves), hint (ranked moves), eval (probabilities and
the cube decision), analyse (a played match)."""
import json

import click

from fastbg.cli.common import (parse_dice, parse_position, engine_position, filter_option,
                               net_label, net_option, resolve_net)
from fastbg.extras import MissingExtra


@click.command("moves")
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
    board = parse_position(position)
    roll = parse_dice(dice)
    try:
        results = fastbg.legal_moves(board, roll)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    click.echo(f"{len(results)} distinct results")
    for r, text in zip(results, fastbg.move_notations(board, results, roll)):
        click.echo(f"{fastbg.position_id(r)}  {text or CANNOT_MOVE}")
        if show:
            click.echo(fastbg.render(r) + "\n")


@click.command("hint")
@click.argument("position")
@click.argument("dice", required=False)
@click.option("--ply", default=0, show_default=True, type=click.IntRange(0, 3),
              help="Look-ahead: 0 is the network alone, 1 and 2 its n-ply.")
@click.option("--all", "filter_none", is_flag=True,
              help="Evaluate every move at --ply (default: the best 0-ply ones, as gnubg).")
@filter_option(help="Which 0-ply candidates --ply looks at: gnubg-nn's best 8 ('gnubg'), "
                   "one of GNU Backgammon's move filters (its default 'normal': at most 8 "
                   "within 0.16 of the best), or NxT: at most N within T (e.g. 2x0.03).")
@click.option("--pruning-nets", is_flag=True,
              help="Prune inside the look-ahead with GNU Backgammon's pruning nets, as it "
                   "does by default (faster; gnubg-nn does not).")
@click.option("--top", default=None, type=click.IntRange(1), help="Show only the best N moves.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, writable=True),
              help="Also write the ranked list as JSON to this file ('-': stdout only).")
@click.option("--show/--no-show", default=False, help="Draw the board before the move.")
@net_option
def hint_command(position, dice, ply, filter_none, move_filter, pruning_nets, top, json_path,
                 show, net_name):
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
    board, info = engine_position(position)
    if dice is not None:
        dice = parse_dice(dice)
    elif info is None or info.dice is None:
        raise click.UsageError("give DICE (e.g. 3-1), or an XGID that has them")
    try:
        # an XGID goes in whole: a match's score and cube make the ranking cubeful
        net = resolve_net(net_name)
        h = fastbg.hint(position if info is not None else board, dice, ply=ply,
                        filter=None if filter_none else move_filter, prune=pruning_nets,
                        net=net)
    except MissingExtra:     # one line and status 2, in the command group
        raise
    except (ValueError, TypeError, ImportError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from None
    if top is not None:
        del h[top:]
    record = dict(h.to_dict(), networks=net_label(net))
    if json_path == "-":
        click.echo(json.dumps(record))
        return
    if show:
        click.echo(fastbg.render(board) + "\n")
    click.echo(h.text())
    click.echo(f"networks: {net_label(net)}")
    if json_path:
        with open(json_path, "w") as f:
            f.write(json.dumps(record) + "\n")


@click.command("eval")
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
@net_option
def eval_command(position, ply, match_length, score_text, cube_value, owner, crawford,
                 json_path, net_name):
    """Evaluate POSITION (a Position ID or an XGID, player on roll, before the roll): the
    cubeless probabilities and equity at --ply, then the cube decision (no double, double
    and take, double and pass; money equities or, with --match, match-winning chances)
    and the proper cube action, as GNU Backgammon's eval does.

    \b
    fastbg eval 4HPwATDgc/ABMA --ply 1
    fastbg eval 4HPwATDgc/ABMA --match 7 --score 2-4
    """
    import fastbg
    board, info = engine_position(position)
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
        net = resolve_net(net_name)
        probs = net.probabilities(board, ply=ply)
        try:
            dec = fastbg.cube_decision(position if info is not None else board, rules=rules,
                                       score=score, cube=cube_value, owner=owner, ply=ply,
                                       net=net, crawford=crawford or None)
            why = None
        except ValueError as exc:
            dec, why = None, str(exc)
    except MissingExtra:     # one line and status 2, in the command group
        raise
    except (ValueError, TypeError, ImportError, FileNotFoundError) as exc:
        raise click.ClickException(str(exc)) from None
    equity = float(fastbg.cube.formulas.equity_of(probs))
    record = {"position": position, "ply": ply, "probabilities": probs.tolist(),
              "cubeless_equity": equity,
              "cube_decision": None if dec is None else {
                  "no_double": dec.no_double, "double_take": dec.double_take,
                  "double_pass": dec.double_pass, "action": dec.action,
                  "x": dec.x, "match": dec.is_match},
              "no_cube_decision": why, "networks": net_label(net)}
    if json_path == "-":
        click.echo(json.dumps(record))
        return
    p = probs
    click.echo(f"{ply}-ply cubeless: win {p[0]:.3f} (gammon {p[1]:.3f}, backgammon {p[2]:.3f}), "
               f"lose {1 - p[0]:.3f} (gammon {p[3]:.3f}, backgammon {p[4]:.3f}); "
               f"equity {equity:+.3f}")
    click.echo(dec.text() if dec is not None else f"no cube decision: {why}")
    click.echo(f"networks: {net_label(net)}")
    if json_path:
        with open(json_path, "w") as f:
            f.write(json.dumps(record) + "\n")


@click.command("analyse")
@click.argument("path", type=click.Path(dir_okay=False))
@click.option("--ply", default=0, show_default=True, type=click.IntRange(0, 3),
              help="Look-ahead of the move and cube evaluations.")
@click.option("--luck-ply", default=0, show_default=True, type=click.IntRange(0, 3),
              help="Look-ahead of each roll's luck (GNU Backgammon's luck analysis: 0).")
@filter_option(help="Which 0-ply candidates --ply looks at (GNU Backgammon analyses with "
                   "'large'; NxT: at most N within T); the move played and the best 0-ply "
                   "move always.")
@click.option("--pruning-nets", is_flag=True,
              help="Prune the moves' look-ahead with GNU Backgammon's pruning nets, as it does.")
@click.option("--weights", type=click.Path(exists=True),
              help="A weights file (e.g. GNU Backgammon's gnubg.weights) for the network "
                   "(the same as --net FILE).")
@net_option
@click.option("--worst", default=10, show_default=True, type=click.IntRange(0),
              help="How many of the costliest decisions to list.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, writable=True),
              help="Also write the whole analysis (every move and cube decision) as JSON.")
def analyse_command(path, ply, luck_ply, move_filter, pruning_nets, weights, worst, json_path,
                    net_name):
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
        if weights and net_name:
            raise click.UsageError("give --weights or --net, not both")
        net = resolve_net(weights or net_name)
        a = fastbg.analyse(record, ply=ply, net=net, luck_ply=luck_ply, filter=move_filter,
                           prune=pruning_nets)
    except click.ClickException:
        raise
    except MissingExtra:     # one line and status 2, in the command group
        raise
    except (ValueError, TypeError, OSError, ImportError, UnicodeDecodeError) as exc:
        raise click.ClickException(f"{path}: {exc}") from None
    click.echo(a.table(worst=worst))
    click.echo(f"networks: {net_label(net)}")
    if json_path:
        a.save(json_path)
