"""Root pytest configuration: doctests of the package run too (see pyproject.toml)."""
collect_ignore = ["fastbg/__main__.py"]     # importing it runs the command line
