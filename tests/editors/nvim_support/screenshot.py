"""A tmux pane (``capture-pane -p -e``: text with SGR colour codes) drawn as a PNG, for the README's screenshots."""

from __future__ import annotations

import re
from pathlib import Path

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
SIZE = 15
FG, BG = (220, 220, 215), (24, 26, 31)
BASIC = [
    (24, 26, 31), (224, 108, 117), (152, 195, 121), (229, 192, 123),
    (97, 175, 239), (198, 120, 221), (86, 182, 194), (220, 220, 215),
]  # fmt: skip
BRIGHT = [(92, 99, 112), (240, 128, 128), (170, 220, 140), (240, 210, 140), (120, 190, 250), (215, 140, 235),
          (110, 200, 210), (255, 255, 255)]  # fmt: skip
SGR = re.compile(r"\x1b\[([0-9;:]*)m")


def xterm(n: int) -> tuple[int, int, int]:
    if n < 8:
        return BASIC[n]
    if n < 16:
        return BRIGHT[n - 8]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return steps[n // 36], steps[n // 6 % 6], steps[n % 6]
    g = 8 + (n - 232) * 10
    return g, g, g


def cells(line: str) -> list[tuple[str, tuple[int, int, int], tuple[int, int, int], bool]]:
    """The line's characters with their foreground, background and boldness."""
    out = []
    fg, bg, bold, reverse = FG, BG, False, False
    pos = 0
    for match in [*SGR.finditer(line), None]:
        end = match.start() if match else len(line)
        for ch in line[pos:end]:
            a, b = (bg, fg) if reverse else (fg, bg)
            out.append((ch, a, b, bold))
        if match is None:
            break
        pos = match.end()
        codes = [int(c) if c.isdigit() else 0 for c in re.split("[;:]", match.group(1) or "0")]
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0:
                fg, bg, bold, reverse = FG, BG, False, False
            elif c == 1:
                bold = True
            elif c == 22:
                bold = False
            elif c == 7:
                reverse = True
            elif c == 27:
                reverse = False
            elif 30 <= c <= 37:
                fg = BASIC[c - 30]
            elif 90 <= c <= 97:
                fg = BRIGHT[c - 90]
            elif 40 <= c <= 47:
                bg = BASIC[c - 40]
            elif 100 <= c <= 107:
                bg = BRIGHT[c - 100]
            elif c == 39:
                fg = FG
            elif c == 49:
                bg = BG
            elif c in (38, 48) and i + 1 < len(codes):
                if codes[i + 1] == 5 and i + 2 < len(codes):
                    colour = xterm(codes[i + 2])
                    i += 2
                elif codes[i + 1] == 2 and i + 4 < len(codes):
                    colour = (codes[i + 2], codes[i + 3], codes[i + 4])
                    i += 4
                else:
                    colour = FG if c == 38 else BG
                if c == 38:
                    fg = colour
                else:
                    bg = colour
            i += 1
    return out


def render(captured: str, path: Path) -> None:
    from PIL import Image, ImageDraw, ImageFont

    font, bold_font = ImageFont.truetype(FONT, SIZE), ImageFont.truetype(BOLD, SIZE)
    width = int(font.getlength("M"))
    height = SIZE + 4
    rows = [cells(line) for line in captured.rstrip("\n").split("\n")]
    columns = max((len(r) for r in rows), default=1)
    image = Image.new("RGB", (columns * width + 16, len(rows) * height + 16), BG)
    draw = ImageDraw.Draw(image)
    for y, row in enumerate(rows):
        for x, (ch, fg, bg, bold) in enumerate(row):
            left, top = 8 + x * width, 8 + y * height
            if bg != BG:
                draw.rectangle([left, top, left + width, top + height], fill=bg)
            if ch != " ":
                draw.text((left, top + 1), ch, font=bold_font if bold else font, fill=fg)
    image.save(path)
