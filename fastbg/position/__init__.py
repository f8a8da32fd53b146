"""Positions and moves: the board array, its checks and pictures, Position ID / Match ID /
XGID, and legal-move generation (wrappers in ``board``, ``ids``, ``moves``; kernels in
``board_kernels``, ``bits``, ``movegen``). See docs/architecture.md."""
