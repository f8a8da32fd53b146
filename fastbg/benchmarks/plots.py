"""The picture of a benchmark comparison: error rates with their 95% intervals."""
from fastbg.jobs.plots import _pyplot_free_figure, figure_png


def plot_error_rates(comparison, path=None):
    """A horizontal bar per bot (best at the top), its error rate (mEMG) and 95% interval:
    a :class:`PngPicture`, also written to ``path`` unless it is None."""
    Figure, FigureCanvasAgg = _pyplot_free_figure()
    scores = [s for s in comparison.scores if s.decisions]
    fig = Figure(figsize=(7, 0.5 * len(scores) + 1.4))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    y = list(range(len(scores)))[::-1]
    rates = [s.error_rate for s in scores]
    err = [[s.error_rate - s.ci95[0] for s in scores], [s.ci95[1] - s.error_rate for s in scores]]
    ax.barh(y, rates, xerr=err, color="#4c72b0", capsize=3)
    ax.set_yticks(y, [s.bot for s in scores])
    for yi, s in zip(y, scores):        # the figure past the interval's end, clear of it
        ax.text(s.ci95[1] if s.ci95[1] == s.ci95[1] else s.error_rate, yi,
                f"  {s.error_rate:.1f}", va="center", ha="left", fontsize=8)
    ax.set_xlabel("error rate (mEMG per decision, 95% interval); lower is better")
    ax.set_title(f"benchmark {comparison.source}", fontsize=10)
    return figure_png(fig, path)
