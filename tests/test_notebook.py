"""docs/tour.ipynb, the worked notebook, runs from top to bottom without an error and shows
what it promises: a board as SVG, results as HTML tables, a plot as PNG (nbclient, from the
test extra, runs it in a real Jupyter kernel)."""
import pathlib

import pytest

nbformat = pytest.importorskip("nbformat", reason="the notebook test needs the test extra")
nbclient = pytest.importorskip("nbclient", reason="the notebook test needs the test extra")
pytest.importorskip("ipykernel", reason="the notebook test needs the test extra")

NOTEBOOK = pathlib.Path(__file__).resolve().parent.parent / "docs" / "tour.ipynb"


def test_tour_notebook_runs_and_draws(tmp_path):
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # run where its files (position.svg) may be written, not in docs/
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    kinds = [set(o.get("data", {})) for c in nb.cells if c.cell_type == "code"
             for o in c.outputs]
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type == "error"]
    assert not errors
    assert any("image/svg+xml" in k for k in kinds)          # fastbg.show
    assert sum("text/html" in k for k in kinds) >= 4         # play, tournament, rollouts
    assert any("image/png" in k for k in kinds)              # tour.plot()
    assert (tmp_path / "position.svg").read_text().startswith("<svg")
