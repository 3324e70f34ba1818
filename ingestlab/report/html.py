"""A self-contained HTML report: the Markdown rendered, each chart embedded as a PNG data URI after the title and
opening paragraph; an inline script records how many images decoded (``data-images-loaded`` on ``<body>``).
"""

from __future__ import annotations

import base64
import html
import re

import markdown as md

STYLE = """
body { font-family: system-ui, sans-serif, "Noto Sans CJK JP", "Noto Sans JP", "IPAexGothic", "IPAGothic", "TakaoGothic",
       "Hiragino Sans", "Yu Gothic", "Meiryo", "Droid Sans Fallback"; max-width: 1100px; margin: 2em auto; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; }
th { background: #f3f3f3; }
td { text-align: right; }
td:first-child { text-align: left; }
figure { margin: 2em 0; }
figcaption { font-weight: 600; margin-bottom: 0.5em; }
img { max-width: 100%; }
"""
SCRIPT = """
window.addEventListener("load", function () {
  var images = Array.prototype.slice.call(document.images);
  var loaded = images.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  document.body.setAttribute("data-images-loaded", loaded + "/" + images.length);
});
"""


def page(title: str, markdown_text: str, charts: list[tuple[str, bytes]]) -> str:
    figures = "\n".join(
        f"<figure><figcaption>{html.escape(caption)}</figcaption>"
        f'<img alt="{html.escape(caption)}" src="data:image/png;base64,{base64.b64encode(data).decode()}"></figure>'
        for caption, data in charts
    )
    body = md.markdown(markdown_text, extensions=["tables"])
    opening = re.search(r"<h[1-3][^>]*>.*?</h[1-3]>\s*(<p>.*?</p>)?", body, re.S)
    at = opening.end() if opening else 0
    body = body[:at] + f"\n{figures}\n" + body[at:]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{STYLE}</style><script>{SCRIPT}</script></head>\n"
        f"<body>\n{body}\n</body></html>\n"
    )
