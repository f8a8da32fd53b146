"""Progress bars for long jobs (tqdm, from the ``cli`` extra), or a silent stand-in."""


class _Silent:
    """The bar of a job run without one: every call does nothing."""
    n = 0

    def update(self, k=1):
        self.n += k

    def set_postfix_str(self, *args, **kwargs):
        pass

    def close(self):
        pass


def progress_bar(total, enabled, unit, desc, initial=0):
    """A tqdm bar over ``total`` ``unit``\\ s starting at ``initial``, or a silent one.

    >>> bar = progress_bar(10, False, "game", "demo")
    >>> bar.update(3); bar.close(); bar.n
    3
    """
    if not enabled:
        bar = _Silent()
        bar.n = initial
        return bar
    from tqdm.auto import tqdm
    return tqdm(total=total, initial=initial, unit=unit, unit_scale=True, desc=desc,
                smoothing=0.1)
