"""The analysis engine: ranked moves (hints) and cube decisions at n-ply (docs/engine.md)."""
