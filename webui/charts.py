"""Small charts drawn on the box as SVG, for the fairness page (issue 36).

Why server-side SVG: the page must work with no internet (no CDN) and a chart library would be hundreds of KB
of JavaScript for six bars. An SVG inline in the page is a few hundred bytes, scales to any phone, and the
page's Content-Security-Policy allows it as it is: no inline style, only classes styled by style.css.
"""

from __future__ import annotations

from collections.abc import Sequence

from markupsafe import Markup, escape

WIDTH, HEIGHT = 320, 150
TOP, BOTTOM, SIDE = 18, 22, 6  # room for the counts above the bars and the face labels below


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def face_bars(counts: Sequence[int], expected: Sequence[float], labels: Sequence[str], *, title: str,
              hot: int | None = None) -> Markup:
    """One bar per face (its count written above it), a dashed line at what a fair die gives each face, the
    face's label below; bar `hot` (the face a biased die shows too often or too rarely) stands out."""
    if not counts:
        return Markup("")
    top = max(max(counts), max(expected), 1) * 1.1
    plot = HEIGHT - TOP - BOTTOM
    slot = (WIDTH - 2 * SIDE) / len(counts)

    def y(value: float) -> float:
        return TOP + plot * (1 - value / top)

    parts = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(title)}">',
             f"<title>{escape(title)}</title>",
             f'<line class="axis" x1="{SIDE}" y1="{_num(y(0))}" x2="{WIDTH - SIDE}" y2="{_num(y(0))}"/>']
    for i, (count, label) in enumerate(zip(counts, labels, strict=True)):
        x = SIDE + i * slot
        kind = "bar hot" if i == hot else "bar"
        parts.append(f'<rect class="{kind}" x="{_num(x + slot * 0.15)}" y="{_num(y(count))}" '
                     f'width="{_num(slot * 0.7)}" height="{_num(y(0) - y(count))}"/>')
        parts.append(f'<text class="count" x="{_num(x + slot / 2)}" y="{_num(y(count) - 4)}">{count}</text>')
        parts.append(f'<text class="face" x="{_num(x + slot / 2)}" y="{HEIGHT - 6}">{escape(label)}</text>')
        parts.append(f'<line class="fair" x1="{_num(x + slot * 0.05)}" y1="{_num(y(expected[i]))}" '
                     f'x2="{_num(x + slot * 0.95)}" y2="{_num(y(expected[i]))}"/>')
    parts.append("</svg>")
    return Markup("".join(parts))
