"""Match files: Jellyfish .mat (:mod:`fastbg.files.mat`) and GNU Backgammon's .sgf
(:mod:`fastbg.files.sgf`), read and written from :class:`fastbg.GameRecord` /
:class:`fastbg.MatchRecord` (docs/records.md)."""
