#!/usr/bin/env python3
"""chartcheck.py — checks on blkpeak's charts for the end-to-end tests.

  chartcheck.py svg FILE.svg SERIES   the file parses as XML, is an <svg>,
        has SERIES <g class="series"> groups, each drawing as many points as
        its data-points says (polyline points, circles or bars), every one
        of them inside the <rect class="plot-area">, and axis labels.
  chartcheck.py html-svgs FILE        every <svg> element inside an HTML
        file (the report) passes the same structural checks; prints how
        many charts there are.
  chartcheck.py png FILE.png          the screenshot is a real picture: at
        least 8 colours and 2% of its pixels not white/background.

Exit 0 when all checks pass, 1 with the reason on stderr otherwise. Only
the Python standard library is used (xml.etree, zlib).
"""
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

NS = "{http://www.w3.org/2000/svg}"


def fail(msg):
    print("chartcheck: " + msg, file=sys.stderr)
    sys.exit(1)


def tag(el):
    return el.tag.replace(NS, "")


def check_svg_root(root, where):
    """Structural checks of one chart; returns its number of series."""
    if tag(root) != "svg":
        fail(f"{where}: root element is <{tag(root)}>, not <svg>")
    area = [e for e in root.iter() if tag(e) == "rect" and e.get("class") == "plot-area"]
    if len(area) != 1:
        fail(f"{where}: {len(area)} plot areas")
    a = area[0]
    x0, y0 = float(a.get("x")), float(a.get("y"))
    x1, y1 = x0 + float(a.get("width")), y0 + float(a.get("height"))

    def inside(x, y):
        return x0 - 0.06 <= x <= x1 + 0.06 and y0 - 0.06 <= y <= y1 + 0.06

    labels = [e for e in root.iter() if tag(e) == "text" and e.get("class") in ("x-label", "y-label")]
    if len(labels) != 2 or not all((e.text or "").strip() for e in labels):
        fail(f"{where}: missing axis labels")
    series = [g for g in root.iter() if tag(g) == "g" and g.get("class") == "series"]
    for g in series:
        want = int(g.get("data-points"))
        pts = []
        for e in g:
            t = tag(e)
            if t == "polyline":
                for pair in (e.get("points") or "").split():
                    px, py = pair.split(",")
                    pts.append((float(px), float(py)))
            elif t == "circle":
                pts.append((float(e.get("cx")), float(e.get("cy"))))
            elif t == "path":
                # a marker: "M cx cy" at its centre, then relative steps
                m = re.match(r"\s*M\s*(-?[\d.]+)[\s,]+(-?[\d.]+)", e.get("d") or "")
                if not m:
                    fail(f"{where}: a marker of {g.get('data-label')} has no centre")
                pts.append((float(m.group(1)), float(m.group(2))))
            elif t == "rect":
                x, y = float(e.get("x")), float(e.get("y"))
                w, h = float(e.get("width")), float(e.get("height"))
                if not inside(x + w, y + h):
                    fail(f"{where}: bar of {g.get('data-label')} leaves the axes")
                pts.append((x, y))
        if len(pts) != want:
            fail(f"{where}: series {g.get('data-label')!r} draws {len(pts)} points, says {want}")
        for x, y in pts:
            if not inside(x, y):
                fail(f"{where}: point {x},{y} of {g.get('data-label')!r} outside the axes")
    legend = [g for g in root.iter() if tag(g) == "g" and g.get("class") == "legend"]
    if len(legend) != 1:
        fail(f"{where}: no legend")
    return series


def cmd_svg(path, nseries):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        fail(f"{path}: not valid XML: {e}")
    series = check_svg_root(root, path)
    if len(series) != int(nseries):
        fail(f"{path}: {len(series)} series, expected {nseries}")
    if sum(int(g.get("data-points")) for g in series) == 0:
        fail(f"{path}: no points at all")
    print(f"{path}: {len(series)} series, "
          f"{', '.join(g.get('data-points') for g in series)} points, all inside the axes")


def cmd_html_svgs(path):
    text = open(path, encoding="utf-8").read()
    if re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text) or "<script" in text:
        fail(f"{path}: refers to the network or has a script")
    charts = re.findall(r"<svg .*?</svg>", text, re.S)
    for i, c in enumerate(charts):
        # inline SVG carries no namespace; give it one to parse as XML
        c = c.replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1)
        try:
            root = ET.fromstring(c)
        except ET.ParseError as e:
            fail(f"{path}: chart {i}: not valid XML: {e}")
        check_svg_root(root, f"{path} chart {i}")
    print(len(charts))


def png_pixels(path):
    """Decode an 8-bit RGB/RGBA PNG into (width, height, channels, rows)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path}: not a PNG")
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if typ == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                fail(f"{path}: PNG colour type {ctype}/{depth} not handled")
            ch = 3 if ctype == 2 else 4
        elif typ == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * ch
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - ch] if i >= ch else 0
            b = prev[i]
            c = prev[i - ch] if i >= ch else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, ch, rows


def cmd_png(path):
    w, h, ch, rows = png_pixels(path)
    colours, nonbg = set(), 0
    bg = rows[0][:3]
    for r in rows[::2]:
        for x in range(0, w * ch, ch * 2):
            px = r[x:x + 3]
            colours.add(px)
            nonbg += px != bg
    total = ((h + 1) // 2) * ((w + 1) // 2)
    share = nonbg / total
    if len(colours) < 8 or share < 0.02:
        fail(f"{path}: looks blank ({len(colours)} colours, {share:.1%} not background)")
    print(f"{path}: {w}x{h}, {len(colours)} colours, {share:.1%} not background")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "svg":
        cmd_svg(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "html-svgs":
        cmd_html_svgs(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "png":
        cmd_png(sys.argv[2])
    else:
        fail("usage: chartcheck.py svg FILE N | html-svgs FILE | png FILE")
