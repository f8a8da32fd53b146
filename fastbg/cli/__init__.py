"""The ``fastbg`` command line: ``fastbg --help`` lists the commands.

The commands live by group: :mod:`fastbg.cli.about` (demo, selfcheck, info),
:mod:`fastbg.cli.games` (play, tournament), :mod:`fastbg.cli.rollouts` (rollout) and
:mod:`fastbg.cli.analysis` (moves, hint, eval, analyse), :mod:`fastbg.cli.benchmarks`
(benchmark make, benchmark score); :mod:`fastbg.cli.common` holds
what they share. Every failure a user can cause ends in one line on stderr, never a
traceback: a bad argument (status 2, click's usage error), a job that cannot run (status 1),
a missing optional part (status 2, with the pip command that brings it), Ctrl-C
(status 130) and a Ray cluster lost mid-job (status 69, with the command that resumes).
"""
import os
import sys

try:
    import click
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise SystemExit("the fastbg command needs the 'cli' extra: pip install 'fastbg[cli]'") from exc

from fastbg.cli.common import EXIT_INTERRUPTED, exit_if_on_ray
from fastbg.extras import MissingExtra

EXIT_MISSING_EXTRA = 2      # as a usage error: the command cannot run as asked on this install
EXIT_CLUSTER_LOST = 69      # sysexits' EX_UNAVAILABLE: the service (the Ray cluster) is gone


class _Commands(click.Group):
    """The command group. A Ctrl-C that reaches it (before a job's chunk loop, e.g. while
    kernels compile) exits with status 130 like one seen by the job itself; a missing
    optional part anywhere below is one line and status 2; so is a Ray cluster lost
    mid-job (status 69), with the command that resumes what was saved."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("interrupted before any work finished; nothing was saved", err=True)
            exit_if_on_ray()
            raise SystemExit(EXIT_INTERRUPTED) from None
        except MissingExtra as exc:
            click.echo(f"fastbg {ctx.invoked_subcommand}: {exc}", err=True)
            raise SystemExit(EXIT_MISSING_EXTRA) from None
        except RuntimeError as exc:
            from fastbg.distributed import ClusterLost
            if not isinstance(exc, ClusterLost):
                raise
            click.echo(f"fastbg {ctx.invoked_subcommand}: {exc}; {_resume_hint()}", err=True)
            # leave now: Ray's own shutdown would wait for the lost head, then abort
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(EXIT_CLUSTER_LOST)


def _resume_hint():
    """What to run to finish a job whose cluster was lost: the same command with --resume
    (its results file holds every chunk merged before)."""
    import shlex
    args = sys.argv[1:]
    if not any(a == "--out" or a.startswith("--out=") for a in args):
        return "nothing was saved (no --out)"
    again = " ".join(shlex.quote(a) for a in ["fastbg"] + args
                     + ([] if "--resume" in args else ["--resume"]))
    return (f"what finished is saved: resume with {again} (without --ray to finish on this "
            "machine)")


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="fastbg")
def main():
    """fastbg: exact backgammon rules and fast numba kernels.

    Positions are given as GNU Backgammon Position IDs (e.g. 4HPwATDgc/ABMA, the start)
    or XGIDs. Start with 'fastbg demo'; 'fastbg info' says what is installed.
    """


def _register():
    from fastbg.cli import about, analysis, benchmarks, games, rollouts
    for command in (about.demo_command, games.play_command, games.tournament_command,
                    rollouts.rollout_command, analysis.moves_command, analysis.hint_command,
                    analysis.eval_command, analysis.analyse_command, about.info_command,
                    benchmarks.benchmark_group, about.selfcheck_command):
        main.add_command(command)


_register()
