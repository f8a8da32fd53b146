"""``python -m fastbg`` runs the command line."""
from .cli import main

main()
