"""The move any bot plays in a batch of (position, dice) decisions: :func:`bot_choices`.

A benchmark asks one question of a bot, many times: which of this roll's legal results
do you play? The game drivers already answer it for every kind of bot (built-in
policies and numba scorers inside the kernel, Python evaluators, the n-ply bots and the
other engines in one batch call per round), so the decisions are set up as one lock-step
round of games, one game per decision, each at its first ply with its own dice: the
choice is then exactly the move the bot would play in a game (the random bot's draw keyed
by the decision's index and ``seed``).
"""
import numpy as np

from fastbg.constants import BOARD_SIZE
from fastbg.parallel import threads as _threads
from fastbg.position.board import validate
from fastbg.position.moves import validate_dice
from fastbg.sim.games import BotError, LockstepGames, lockstep_choices
from fastbg.sim.setup import job_setup


def bot_choices(bot, boards, dice, seed=0, threads=None):
    """The moves ``bot`` plays: ``(results, offsets, choice)``.

    boards : (n, 26) int8, each seen from the player on roll; dice : (n, 2).
    ``results[offsets[i]:offsets[i + 1]]`` are decision i's distinct legal results (the
    order of :func:`fastbg.legal_moves`) and ``choice[i]`` the index among them of the one
    the bot plays. ``bot`` is any bot :func:`fastbg.play` takes (a name, a ScorerBot, an
    EvaluatorBot, a GnubgNet). A bot that scores NaN raises :class:`fastbg.BotError`.

    >>> import numpy as np, fastbg
    >>> res, off, choice = bot_choices("greedy", np.stack([fastbg.START]), [(3, 1)])
    >>> fastbg.move_notation(fastbg.START, res[off[0] + choice[0]], (3, 1))
    '8/5 6/5'
    """
    b = validate(boards)
    if b.ndim != 2:
        raise ValueError(f"bot_choices takes boards of shape (n, {BOARD_SIZE}), got {b.shape}")
    d = np.ascontiguousarray(validate_dice(dice, b.shape[0]), dtype=np.int64)
    return choices_checked(bot, np.ascontiguousarray(b), d, seed, threads)


def choices_checked(bot, boards, dice, seed=0, threads=None):
    """:func:`bot_choices` of boards and dice already checked (int8 (n, 26) and int64
    (n, 2), C-contiguous)."""
    n = boards.shape[0]
    st = job_setup(bots=(bot, bot), seed=seed, threads=threads)
    g = LockstepGames(boards, np.zeros(n, np.int8), np.zeros(n, np.int64),
                      np.zeros(n, np.int64), np.zeros(n, np.int64), np.ones(n, np.int64),
                      np.full(n, -1, np.int64), np.zeros(n, np.bool_), np.ones(n, np.bool_))
    live = np.arange(n, dtype=np.int64)
    with _threads(st.n_threads):
        res, off, choice = lockstep_choices(st, 0, g, live, dice)
    if n and choice.min() < 0:
        bad = np.flatnonzero(choice < 0)
        raise BotError(f"decision {int(bad[0])}: {st.names[0]} scored a move NaN"
                       + (f" ({bad.size} decisions failed)" if bad.size > 1 else ""))
    return res, off, choice
