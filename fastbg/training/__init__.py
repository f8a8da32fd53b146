"""Training fastbg's own networks: TD(0) self-play (:mod:`fastbg.training.td`, kernels in
:mod:`fastbg.training.td_kernels`) of networks in GNU Backgammon's layout, kept in fastbg's
own weights file (:mod:`fastbg.training.weights`). docs/training.md explains the pipeline
and keeps its generations.
"""
from fastbg.training.td import TDRun, train_td  # noqa: F401
