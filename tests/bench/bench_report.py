"""Medians, paired ratios, the tables printed per section and the SVG chart
of the ratios. Figures only: nothing here passes or fails."""
import statistics


def med(xs):
    return statistics.median(xs) if xs else None


def paired_ratio(a, b):
    """Median of the per-round ratios a[i] / b[i] (rounds were interleaved,
    so each pair saw the same machine)."""
    rs = [x / y for x, y in zip(a, b) if y]
    return statistics.median(rs) if rs else None


def fmt(x, spec=".1f", none="-"):
    return none if x is None else format(x, spec)


def table(title, head, rows):
    """Prints one section: a title, a header and aligned rows of strings."""
    cols = [head] + [[str(c) for c in r] for r in rows]
    w = [max(len(r[i]) for r in cols) for i in range(len(head))]
    print("\n" + title)
    for k, r in enumerate(cols):
        print("  " + "  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i])
                               for i, c in enumerate(r)))
        if k == 0:
            print("  " + "  ".join("-" * x for x in w))


def _esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def svg(groups, path):
    """Horizontal bars, one per ratio, a line at 1 (= bare python3), and the
    issue's targets as ticks. groups: [(title, [(label, ratio, target)])]."""
    bar_h, gap, left, width, top = 18, 6, 300, 420, 40
    vmax = max([1.0] + [r for _, bars in groups for _, r, _ in bars if r] +
               [t for _, bars in groups for _, _, t in bars if t]) * 1.1
    n = sum(len(b) + 2 for _, b in groups)
    height = top + n * (bar_h + gap) + 30
    x = lambda v: left + v / vmax * width  # noqa: E731
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="12">' % (left + width + 90, height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="10" y="20" font-size="14" font-weight="bold">sandboxd against '
           'bare python3 (make bench; medians of paired ratios)</text>']
    y = top
    for title, bars in groups:
        out.append('<text x="10" y="%d" font-weight="bold">%s</text>' % (y + 13, _esc(title)))
        y += bar_h + gap
        for label, r, target in bars:
            out.append('<text x="%d" y="%d" text-anchor="end">%s</text>'
                       % (left - 8, y + 13, _esc(label)))
            if r is not None:
                out.append('<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>'
                           % (left, y, x(r) - left, bar_h, "#4a78b5"))
                out.append('<text x="%.1f" y="%d">%.2f×</text>' % (x(r) + 4, y + 13, r))
            else:
                out.append('<text x="%d" y="%d" fill="#888">not measured</text>'
                           % (left + 4, y + 13))
            if target:
                out.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#c33" '
                           'stroke-width="2" stroke-dasharray="3,2"/>'
                           % (x(target), x(target), y - 2, y + bar_h + 2))
            y += bar_h + gap
        y += bar_h + gap
    out.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="black"/>'
               % (x(1), x(1), top, y - bar_h))
    out.append('<text x="%.1f" y="%d" text-anchor="middle">1× = bare python3</text>'
               % (x(1), y - 4))
    out.append('<text x="10" y="%d" fill="#c33">dashed: target of issue 11, section 3'
               '</text>' % (y + 14))
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
