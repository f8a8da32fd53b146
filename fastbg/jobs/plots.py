"""Pictures of results (matplotlib, from the ``plot`` extra, drawn without pyplot)."""
import io
import os

import numpy as np

from fastbg.extras import MissingPackage


def _pyplot_free_figure():
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise MissingPackage("the plot needs matplotlib", "plot") from None
    return Figure, FigureCanvasAgg


def check_plot():
    """Raise ImportError naming the ``plot`` extra when matplotlib is missing."""
    _pyplot_free_figure()


class PngPicture:
    """A PNG image in memory: ``png`` its bytes, :meth:`save` writes them, and a notebook
    (Jupyter) draws it in place through ``_repr_png_``."""

    def __init__(self, png):
        self.png = bytes(png)

    def _repr_png_(self):
        return self.png

    def save(self, path):
        """Write the PNG file ``path``."""
        with open(os.fspath(path), "wb") as f:
            f.write(self.png)

    def __repr__(self):
        return f"<PngPicture: {len(self.png):,} bytes>"


def plot_matrix(m, names, match, partial, caption, path=None):
    """The (k, k) matrix ``m`` of row-vs-column figures (match-winning rates when
    ``match``, else points per game) as a PNG heat map with the values in the cells: a
    :class:`PngPicture`, also written to ``path`` unless it is None.

    Uses matplotlib's Agg canvas directly (no pyplot, no global backend change).
    """
    Figure, FigureCanvasAgg = _pyplot_free_figure()
    k = len(names)
    if match:
        centre, span, label, spec = 0.5, 0.5, "match-winning rate (row vs column)", ".3f"
    else:
        finite = np.abs(m[np.isfinite(m)])
        centre, span = 0.0, float(finite.max()) if finite.size and finite.max() > 0 else 1.0
        label, spec = "points per game (row bot's view)", "+.3f"
    size = 1.2 + 1.1 * k
    fig = Figure(figsize=(size + 1.5, size))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    shown = np.ma.masked_invalid(m)
    im = ax.imshow(shown, cmap="RdBu", vmin=centre - span, vmax=centre + span)
    ax.set_facecolor("0.85")
    ax.set_xticks(range(k), labels=names, rotation=30, ha="right")
    ax.set_yticks(range(k), labels=names)
    for a in range(k):
        for b in range(k):
            if a == b or not np.isfinite(m[a, b]):
                continue
            dark = abs(m[a, b] - centre) > 0.6 * span
            ax.text(b, a, format(m[a, b], spec), ha="center", va="center",
                    color="white" if dark else "black", fontsize=10)
    fig.colorbar(im, ax=ax, label=label)
    title = "tournament" + (" (partial)" if partial else "")
    ax.set_title(f"{title}\n{caption}", fontsize=8)
    return figure_png(fig, path, dpi=120)


def figure_png(fig, path=None, dpi=100):
    """A finished matplotlib figure as a :class:`PngPicture`, also written to ``path``
    unless it is None."""
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    picture = PngPicture(buffer.getvalue())
    if path is not None:
        picture.save(path)
    return picture
