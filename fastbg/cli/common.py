"""What the fastbg commands share: argument parsing, the option groups of several
commands, and how an interrupted or failed job is reported."""
import os
import sys

import click



EXIT_INTERRUPTED = 130     # the shell's code for a command stopped by Ctrl-C (128 + SIGINT)


def interrupted(done, total, unit, out_path, command_hint):
    """Say what an interrupted job kept and how to continue it; exit 130."""
    where = (f"; saved in {out_path}: run the same command with --resume to continue"
             if out_path else f"; nothing was saved: {command_hint}")
    click.echo(f"interrupted: {done:,} of {total:,} {unit} finished{where}", err=True)
    exit_if_on_ray()
    raise SystemExit(EXIT_INTERRUPTED)


def exit_if_on_ray():
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


def parse_dice(text):
    try:
        d1, d2 = (int(x) for x in text.replace(",", "-").split("-"))
    except ValueError:
        raise click.BadParameter(f"dice look like 3-1 or 6,6; got {text!r}") from None
    return d1, d2


def parse_position(text):
    import fastbg
    try:
        return fastbg.board_from_position_id(text)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


RAY_DEFAULT = "default"     # --ray without an address


def ray_option(f):
    """``--ray [ADDRESS]``: run the job's chunks as tasks on a Ray cluster."""
    return click.option(
        "--ray", "ray_address", is_flag=False, flag_value=RAY_DEFAULT, default=None,
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


def backend(address):
    """The jobs' ``backend=`` argument from ``--ray``."""
    if address is None:
        return "local"
    from fastbg.distributed import RayCluster
    return RayCluster(None if address == RAY_DEFAULT else address)


def rules_options(cube_default, cube_help):
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


def rules_from_options(money, match_length, jacoby, beavers, raccoons, auto_doubles, triple_on_66,
           max_cube, crawford):
    """MoneyRules, MatchRules or None (cubeless) from the shared options."""
    import fastbg
    if money and match_length:
        raise click.UsageError("choose --money or --match, not both")
    limit = count_or_none(max_cube, "--max-cube")
    autos = count_or_none(auto_doubles, "--auto-doubles")
    if match_length:
        return fastbg.MatchRules(match_length, crawford=crawford, max_cube=limit)
    if money:
        return fastbg.MoneyRules(jacoby=jacoby, beavers=beavers, raccoons=raccoons,
                                 auto_doubles=autos is None or autos > 0,
                                 auto_double_limit=None if autos is None else max(autos, 1),
                                 triple_on_66=triple_on_66, max_cube=limit)
    return None


def count_or_none(text, option):
    """An integer option that may also be 'none' (no limit)."""
    if text.lower() in ("none", "unlimited"):
        return None
    try:
        return int(text)
    except ValueError:
        raise click.BadParameter(f"an integer or 'none', got {text!r}",
                                 param_hint=option) from None


def cube_strategies(text):
    """The --cube pair of names, as the Python API takes them (never, race, gnubg,
    gnubg-1ply ..., an engine's); None: the job's default (gnubg's for a cube decision
    with a gnubg bot)."""
    if text is None:
        return None
    from fastbg.sim.setup import gnubg_cube_ply
    names = pair_option(text, "--cube")
    try:
        for name in names:
            gnubg_cube_ply(name)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--cube") from None
    return names


def pair_option(text, option):
    pair = tuple(b.strip() for b in text.split(","))
    if len(pair) != 2 or not all(pair):
        raise click.BadParameter(f"give two names separated by a comma, got {text!r}",
                                 param_hint=option)
    return pair


def engine_position(text):
    """(board, XGIDInfo or None) of a Position ID or an XGID, or one clear error line."""
    from fastbg.position.ids import read_position
    try:
        return read_position(text)
    except (ValueError, TypeError) as exc:
        raise click.BadParameter(str(exc), param_hint="POSITION") from None


# The move filters of hint and analyse (fastbg.analysis.hints.FILTERS but None: --all).
FILTER_NAMES = ("gnubg", "tiny", "narrow", "normal", "large", "huge")


class MoveFilter(click.ParamType):
    """A move filter's name or "NxT" (at most N moves within T of the best)."""
    name = "filter"

    def get_metavar(self, param, ctx=None):
        return "[" + "|".join(FILTER_NAMES) + "|NxT]"

    def convert(self, value, param, ctx):
        from fastbg.analysis.hints import check_filter
        if value in FILTER_NAMES:
            return value
        try:
            return check_filter(value, 1)
        except ValueError as exc:
            self.fail(f"{exc}", param, ctx)


def filter_option(help):
    """The --filter option of hint and analyse (a :class:`MoveFilter`, default gnubg's)."""
    return click.option("--filter", "move_filter", default="gnubg", show_default=True,
                        type=MoveFilter(), help=help)


def net_option(f):
    """The --net option of hint, eval and analyse: whose networks evaluate."""
    return click.option(
        "--net", "net_name", default=None,
        help="The networks: fastbg (fastbg's own, shipped), gnubg (GNU Backgammon's, the "
             "gnubg extra) or a weights file [default: gnubg where installed, else "
             "fastbg].")(f)


def resolve_net(name):
    """The evaluator a --net value names (None: the default networks)."""
    import fastbg
    if name is None:
        return fastbg.default_net()
    key = name.strip().lower()
    if key == "fastbg":
        return fastbg.fastbg_net()
    if key == "gnubg":
        from fastbg.sim.bots import gnubg_net_of
        return gnubg_net_of("gnubg")        # MissingWeights (one line, status 2) without them
    return fastbg.gnubg_net(path=name)


def net_label(net):
    """Which networks, for the line a command ends with: "fastbg" or "gnubg (FILE)"."""
    import os
    name = getattr(net, "name", "gnubg")
    if name == "fastbg":
        return "fastbg (fastbg's own)"
    return f"{name} ({os.path.basename(net.weights.path)})"
