"""fastbg's own networks, shipped with the package, and the default evaluator.

:func:`fastbg_net` is the networks fastbg trained itself (scripts/train_nets.py,
docs/training.md): GNU Backgammon's layout (race, crashed and contact nets on its inputs),
so the returned :class:`fastbg.evaluators.nets.GnubgNet` runs in every kernel that runs
GNU Backgammon's (evaluation, the bots, the n-ply search, hints, cube decisions,
rollouts); its weights are MIT like the code and need no extra. :func:`default_net` is
the evaluator that every engine function uses when none is given: GNU Backgammon's
networks when they are installed (the stronger, measured: docs/training.md), else
fastbg's.
"""
from importlib import resources

from fastbg.evaluators.nets import gnubg_net

SHIPPED = "data/nets/fastbg.npz"
NAME = "fastbg"


def shipped_weights_path():
    """The path of the weights file of fastbg's own networks (package data)."""
    return str(resources.files("fastbg").joinpath(SHIPPED))


def fastbg_net(threads=None):
    """fastbg's own networks as a :class:`fastbg.evaluators.nets.GnubgNet` named
    ``"fastbg"``: ``probabilities(boards)`` the five cubeless probabilities of the player
    on roll, usable as every ``net=`` and as a bot.

    >>> import fastbg
    >>> net = fastbg.fastbg_net()
    >>> p = net.probabilities(fastbg.START)
    >>> bool(0.4 < p[0] < 0.6), net.name
    (True, 'fastbg')
    """
    net = gnubg_net(shipped_weights_path(), threads=threads)
    net.name = NAME
    return net


def gnubg_installed():
    """True when GNU Backgammon's networks can be loaded (the gnubg extra, or a weights
    file named by ``FASTBG_GNUBG_WEIGHTS``)."""
    from fastbg.evaluators.nets import default_weights_path
    path = default_weights_path()
    return path is not None and path.is_file()


def default_net(threads=None):
    """The evaluator used when none is given: GNU Backgammon's networks where installed
    (measured the stronger, docs/training.md), else fastbg's own (:func:`fastbg_net`)."""
    if gnubg_installed():
        return gnubg_net(threads=threads)
    return fastbg_net(threads=threads)
