"""The benchmark commands: ``fastbg benchmark make`` and ``fastbg benchmark score``."""
import click

from fastbg.cli.common import backend, interrupted, ray_option
from fastbg.extras import MissingExtra

CLASS_NAMES = ("contact", "crashed", "race", "bear-off")


@click.group("benchmark")
def benchmark_group():
    """Benchmark sets: make one by rollouts, or score bots on one (docs/benchmarks.md).

    A set lists move decisions whose candidate moves were rolled out; a bot's error rate
    is 1000 x the equity it gives up per decision (mEMG), lower is better.

    \b
    Examples:
      fastbg benchmark score --bots random,pubeval,gnubg
      fastbg benchmark score contact.bm --bots gnubg,gnubg-1ply --json scores.json
      fastbg benchmark make my-set.jsonl --decisions 300 --trials 216 --chunk 72
    """


def _error(exc):
    if isinstance(exc, MissingExtra):
        raise exc
    raise click.ClickException(str(exc)) from None


@benchmark_group.command("score")
@click.argument("path", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option("--bots", default="pubeval,gnubg", show_default=True,
              help="Bots to score, comma separated: random, greedy, pubeval, gnubg, "
                   "gnubg-1ply, gnubg-2ply-prune, bgsage, gnubg-app ... (any bot 'fastbg "
                   "play' takes).")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**64 - 1),
              help="The random bot's draws.")
@click.option("--threads", default=None, type=click.IntRange(1), help="Threads (default: all).")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, writable=True),
              help="Write the scores as JSON (fastbg.BenchmarkComparison.load reads it).")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, writable=True),
              help="Draw the error rates with their 95%% intervals as a PNG (the plot extra).")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Progress bar.")
def score_command(path, bots, seed, threads, json_path, plot_path, progress):
    """Score bots on the benchmark set PATH (default: the set shipped with fastbg).

    PATH is a decisions or positions file in fastbg's JSON Lines, or GNU Backgammon's
    benchmark (.bm) or training-data file, gzipped or not. Prints the bots sorted by
    error rate (mEMG per decision, with its 95% interval), by class, and the decisions
    scored per second; on a positions file the mean absolute cubeless equity error of
    each evaluator (gnubg, gnubg-1ply ...).
    """
    import fastbg
    names = [b.strip() for b in bots.split(",") if b.strip()]
    if not names:
        raise click.BadParameter("name at least one bot", param_hint="--bots")
    if plot_path:
        from fastbg.jobs.plots import check_plot
        check_plot()
    try:
        comparison = fastbg.compare_bots(path, names, seed=seed, threads=threads,
                                         progress=progress)
    except KeyboardInterrupt:
        interrupted(0, len(names), "bots", None, "run the command again")
    except Exception as exc:        # a bad file or bot name: one line, status 1
        if isinstance(exc, (ValueError, TypeError, ImportError, OSError, fastbg.BotError)):
            _error(exc)
        raise
    click.echo(comparison.table())
    if any(s.positions for s in comparison.scores):
        click.echo("")
        for s in comparison.scores:
            if s.positions:
                click.echo(f"{s.bot:<22} {s.positions:>9,} positions: mean |equity error| "
                           f"{s.mean_abs_equity_error:.4f}")
    if json_path:
        comparison.save(json_path)
    if plot_path:
        comparison.plot(plot_path)


@benchmark_group.command("make")
@click.argument("out", type=click.Path(dir_okay=False, writable=True))
@click.option("--decisions", default=300, show_default=True, type=click.IntRange(1),
              help="Decisions in the set, shared among the classes of --mix.")
@click.option("--mix", default="contact,crashed,race", show_default=True,
              help="Classes in equal shares, comma separated (contact, crashed, race, "
                   "bear-off), or CLASS=COUNT pairs (contact=500,race=200: then "
                   "--decisions is ignored).")
@click.option("--game-bots", default=None,
              help="The two bots whose games give the positions [default: the strongest "
                   "installed against itself: gnubg,gnubg, else fastbg,fastbg].")
@click.option("--candidates", default=5, show_default=True, type=click.IntRange(2),
              help="Candidates per decision: the best this many ...")
@click.option("--within", default=0.16, show_default=True, type=click.FloatRange(0),
              help="... within this equity of the best, at --filter-ply.")
@click.option("--filter-ply", default=0, show_default=True, type=click.IntRange(0, 3),
              help="The ply of the hint that picks the candidates.")
@click.option("--skip-plies", default=2, show_default=True, type=click.IntRange(0),
              help="Leave out the first plies of every game (the openings).")
@click.option("--bot", default=None,
              help="The bot of the rollouts [default: gnubg when installed, else fastbg].")
@click.option("--trials", default=1296, show_default=True, type=click.IntRange(1),
              help="Trials per candidate.")
@click.option("--truncate", default=10, show_default=True, type=click.IntRange(0),
              help="Stop trials after this many plies and score them with the evaluator "
                   "(0: play every trial to the end).")
@click.option("--vr/--no-vr", "variance_reduction", default=True, show_default=True,
              help="Variance reduction (luck adjustment).")
@click.option("--evaluator", default=None, type=click.Choice(["race", "gnubg"]),
              help="Probabilities for truncation and variance reduction [default: gnubg "
                   "with a gnubg bot].")
@click.option("--chunk", "chunk_size", default=216, show_default=True, type=click.IntRange(1),
              help="Trials per chunk of each rollout.")
@click.option("--target-se", type=click.FloatRange(min=0, min_open=True), default=None,
              help="Stop each decision once every candidate's standard error is at most "
                   "this, checked between chunks (--trials is then the most).")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**63 - 1))
@click.option("--threads", default=None, type=click.IntRange(1), help="Threads (default: all).")
@click.option("--journal", "journal_path", default=None, type=click.Path(dir_okay=False),
              help="The journal [default: OUT.journal].")
@click.option("--resume", is_flag=True, help="Continue the set from its journal.")
@click.option("--progress/--no-progress", default=True, show_default=True, help="Progress bar.")
@ray_option
def make_command(out, decisions, mix, game_bots, candidates, within, filter_ply, skip_plies,
                 bot, trials, truncate, variance_reduction, evaluator, chunk_size, target_se,
                 seed, threads, journal_path, resume, progress, ray_address):
    """Make a benchmark set OUT (JSON Lines): decisions from games of --game-bots, each
    one's best --candidates moves rolled out on common dice.

    Openings, forced moves and decisions with one plausible move are left out. Each
    finished decision is saved in the journal at once: after Ctrl-C or a crash, the same
    command with --resume continues where it stopped (the same figures). OUT is
    rewritten from the journal as the work goes on.

    \b
    Examples:
      fastbg benchmark make set.jsonl --decisions 90
      fastbg benchmark make race.jsonl --mix race=500 --trials 432
      fastbg benchmark make set.jsonl --decisions 3000 --ray auto
    """
    import fastbg
    counts = None
    classes = [m.strip() for m in mix.split(",") if m.strip()]
    if any("=" in c for c in classes):
        try:
            counts = {k.strip(): int(v) for k, v in (c.split("=") for c in classes)}
        except ValueError:
            raise click.BadParameter(f"CLASS=COUNT pairs, got {mix!r}", param_hint="--mix")
    bad = [c for c in (counts or classes) if c not in CLASS_NAMES]
    if bad:
        raise click.BadParameter(f"classes are {', '.join(CLASS_NAMES)}; got {bad[0]!r}",
                                 param_hint="--mix")
    from fastbg.sim.bots import strongest_bot
    pair = [b.strip() for b in (game_bots or ",".join([strongest_bot()] * 2)).split(",")]
    if len(pair) != 2 or not all(pair):
        raise click.BadParameter("two bots, e.g. gnubg,pubeval", param_hint="--game-bots")
    try:
        made = fastbg.make_benchmark(
            out, None if counts else decisions, mix=counts or {c: 1 for c in classes},
            game_bots=tuple(pair), seed=seed, skip_plies=skip_plies, candidates=candidates,
            within=within, filter_ply=filter_ply, trials=trials, bot=bot,
            truncate=truncate or None, variance_reduction=variance_reduction,
            evaluator=evaluator, chunk_size=chunk_size, threads=threads,
            backend=backend(ray_address), resume=resume, progress=progress,
            journal=journal_path, target_se=target_se)
    except KeyboardInterrupt:
        interrupted(0, decisions, "decisions", journal_path or f"{out}.journal",
                    "run it again with --resume")
    except MissingExtra:
        raise
    except (ValueError, TypeError, ImportError, FileExistsError, OSError,
            ConnectionError) as exc:
        _error(exc)
    click.echo(made.table())
    if made.partial:
        interrupted(made.decisions, made.planned, "decisions",
                    journal_path or f"{out}.journal", "run it again with --resume")
