"""Long user jobs with progress bars, saving and resuming: rollouts (``rollouts``),
tournaments (``tournaments``), ratings (``ratings``) and the results journal
(``journal``) they share. See docs/architecture.md."""
