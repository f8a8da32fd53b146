"""Board layout, dtypes and bounds shared by every module (documented once, here).

The interchange board (docs/rules.md section 1) is an ``int8`` array of 26 entries seen from
the player on roll:

* ``b[1..24]``  points in the mover's numbering; positive = mover's checkers,
  negative = opponent's checkers.
* ``b[BAR]`` (25)      the mover's checkers on the bar (>= 0).
* ``b[OPP_BAR]`` (0)   the opponent's checkers on the bar (<= 0).
* Borne-off checkers are implicit: ``CHECKERS - (checkers on board and bar)``.

The mover moves from high points to low points and bears off below point 1.
"""
import numpy as np

# The package version (pyproject.toml reads it from here; fastbg.__version__ is this).
VERSION = "0.1.0"

BOARD_DTYPE = np.int8
BOARD_SIZE = 26
OPP_BAR = 0
BAR = 25
FIRST_POINT = 1
LAST_POINT = 24
HOME_TOP = 6          # points 1..6 are the mover's home board
CHECKERS = 15         # checkers per side
DIE_MIN = 1
DIE_MAX = 6

# Distinct results of one (position, roll) can never exceed this (gnubg's MAX_MOVES);
# every move buffer reserves this many rows per position.
MAX_RESULTS = 3060

# Starting position, seen from the player on roll (both sides: 2 on 24, 5 on 13, 3 on 8, 5 on 6).
START = np.zeros(BOARD_SIZE, dtype=BOARD_DTYPE)
START[24], START[13], START[8], START[6] = 2, 5, 3, 5
START[1], START[12], START[17], START[19] = -2, -5, -3, -5
START.setflags(write=False)

# The 21 distinct rolls, non-doubles with the higher die first.
ROLLS = np.array([(a, b) for a in range(DIE_MAX, 0, -1) for b in range(a, 0, -1)], dtype=np.int8)
ROLLS.setflags(write=False)
