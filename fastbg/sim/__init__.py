"""Playing games: bots (``bots``), the one builder of a run's settings (``setup``),
games and matches (``games``, ``matches``), their results (``results``); kernels in
``game_kernels`` (and its parts: ``game_tables``, ``ply_kernels``, ``move_choice_kernels``,
``game_cube_kernels``, ``lockstep_kernels``) and ``policy_kernels``. See
docs/architecture.md."""
