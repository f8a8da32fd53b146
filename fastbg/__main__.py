"""``python -m fastbg`` runs the command line."""
from fastbg.cli import main

main()
