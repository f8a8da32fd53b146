"""HTML tables for notebooks: the one builder behind every result's ``_repr_html_``.

Jupyter shows an object's ``_repr_html_()`` in place of its text. The results classes
(hints, rollouts, tournaments, games) build theirs here from the same figures as their
text ``table()``. Every caption and cell is escaped here, once, so no caller puts user
text (bot names, positions, file names) into markup by hand; :func:`html_block` joins
built parts (and the package's own SVG pictures) as they are.
"""
from html import escape

_ALIGN = {"l": "left", "r": "right"}


def html_table(header, rows, caption=None, align=None):
    """An HTML ``<table>``: ``header`` the column titles, ``rows`` lists of cells (each
    shown as ``str()``, escaped, the padding of text tables stripped), ``caption`` a line
    of text above it or None, ``align`` one letter per column, ``l`` (left) or ``r``
    (right; for figures), default all left.

    >>> '<td style="text-align: right">3</td>' in html_table(["bot", "n"], [["a", 3]], align="lr")
    True
    >>> "a&lt;b&gt;" in html_table(["bot"], [["a<b>"]])
    True
    """
    header = [str(h) for h in header]
    align = align or "l" * len(header)
    if len(align) != len(header) or set(align) - set(_ALIGN):
        raise ValueError(f"align needs one of l/r per column ({len(header)}), got {align!r}")
    style = [f' style="text-align: {_ALIGN[a]}"' for a in align]
    out = ['<table class="fastbg">']
    if caption is not None:
        out.append(f"<caption>{escape(str(caption))}</caption>")
    out.append("<thead><tr>" + "".join(f"<th{s}>{escape(h)}</th>"
                                       for s, h in zip(style, header)) + "</tr></thead>")
    out.append("<tbody>")
    for row in rows:
        row = list(row)
        if len(row) != len(header):
            raise ValueError(f"a row has {len(row)} cells for {len(header)} columns: {row}")
        out.append("<tr>" + "".join(f"<td{s}>{escape(str(c).strip())}</td>"
                                    for s, c in zip(style, row)) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def html_text(text):
    """A paragraph of plain ``text``, escaped."""
    return f"<p>{escape(str(text))}</p>"


def html_block(*parts):
    """One ``<div>`` of ``parts``, markup already built (:func:`html_table`,
    :func:`html_text`, a :class:`fastbg.BoardDiagram`'s ``svg``); None parts are skipped."""
    return '<div class="fastbg">' + "".join(p for p in parts if p) + "</div>"
