"""Playing games: bots (``bots``), the one builder of a run's settings (``setup``),
games and matches (``games``, ``matches``), their results (``results``); kernels in
``game_kernels`` and ``policy_kernels``. See docs/architecture.md."""
