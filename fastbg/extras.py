"""fastbg's optional parts (pip extras): what each brings, whether it is installed, and the
error raised when a call needs one that is not.

Every such error is a :class:`MissingExtra` carrying the extra's name, so that the command
line answers all of them the same way: one line saying what is missing and the pip command
that brings it, exit status 2 (docs/cli.md). It is also the ordinary exception a Python
caller would expect: an ImportError for a missing package, a FileNotFoundError for missing
network weights.
"""
import importlib.util
from dataclasses import dataclass


@dataclass(frozen=True)
class Extra:
    """One pip extra: ``name`` (``pip install 'fastbg[name]'``), the modules it installs
    (all importable when it is installed) and what it gives, in a few words."""
    name: str
    modules: tuple
    gives: str


EXTRAS = (
    Extra("cli", ("click", "tqdm"), "the fastbg command, progress bars"),
    Extra("gnubg", ("gnubg_nn",), "GNU Backgammon's networks (GPL weights): the gnubg bots; "
          "the default engine where installed (else fastbg's own networks)"),
    Extra("gnubg-app", ("gnubg",), "GNU Backgammon itself as an opponent (gnubg-app bots)"),
    Extra("bgsage", ("bgsage",), "the bgsage bots (Open Sage)"),
    Extra("plot", ("matplotlib",), "tournament plots"),
    Extra("parquet", ("pyarrow",), "rollout files as Parquet"),
    Extra("ray", ("ray",), "jobs on a Ray cluster (--ray)"),
)
BY_NAME = {extra.name: extra for extra in EXTRAS}


def install_command(name):
    """The pip command that installs extra ``name``."""
    if name not in BY_NAME:
        raise ValueError(f"unknown extra {name!r}; known: {', '.join(BY_NAME)}")
    return f"pip install 'fastbg[{name}]'"


def is_installed(name):
    """True when every module of extra ``name`` can be imported (none is imported here).
    A bare folder of that name (Ray leaves /tmp/ray) is a namespace package to Python,
    with no origin: it does not count."""
    for module in BY_NAME[name].modules:
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError):
            return False
        if spec is None or spec.origin in (None, "namespace"):
            return False
    return True


class MissingExtra(Exception):
    """A call needs an optional part that is not installed. ``extra``: its name;
    ``install``: the pip command that brings it. The message says both."""

    def __init__(self, message, extra):
        self.extra = extra
        self.install = install_command(extra)
        if self.install not in message:
            message = f"{message}: {self.install}"
        super().__init__(message)


class MissingPackage(MissingExtra, ImportError):
    """An optional package is not installed."""


class MissingWeights(MissingExtra, FileNotFoundError):
    """GNU Backgammon's network weights were not found."""


def require(name, what):
    """Raise :class:`MissingPackage` ("``what`` needs ...") unless extra ``name`` is
    installed."""
    if not is_installed(name):
        raise MissingPackage(f"{what} needs the {name} extra", name)
