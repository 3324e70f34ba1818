"""MediaWiki markup to plain text, plus categories, links, and whether a page is a stub or a disambiguation page.

Whitespace handling never uses ``\\s``, which matches U+3000 (the ideographic space of Japanese text, kept). Every
pattern starts with a literal, which re's search scans for quickly: the text gets a leading newline, a line's start
is matched as ``\\n`` and put back, and ``'{2,5}`` is written ``'''?'?'?``.
"""

from __future__ import annotations

import re
from operator import itemgetter

CATEGORY_PREFIXES = ("category", "カテゴリ")
FILE_PREFIXES = ("file", "image", "ファイル", "画像", "media")
DISAMBIGUATION_TEMPLATES = {"aimai", "曖昧さ回避", "disambig", "人名の曖昧さ回避", "地名の曖昧さ回避", "dab"}

_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_REF = re.compile(r"<(?i:ref)(?:[^>]*?/>|[^>]*>.*?</(?i:ref)\s*>)", re.DOTALL)  # not IGNORECASE as a whole: keeps "<" a prefix
_TAG = re.compile(r"</?[a-zA-Z][^>]*>")
_TEMPLATE = re.compile(r"\{\{[^{}]*\}\}")
_TEMPLATE_NAME = re.compile(r"\{\{[ \t\n]*([^{}|\n]+?)[ \t\n]*(?:\||\}\})")
_TABLE = re.compile(r"\n\{\|.*?\n\|\}", re.DOTALL)  # a line starting {| to one starting |}, put back as "\n"
# [[ns:target|label]]; the lookahead, one quick scan, turns away a link with no ':' before the lazy match steps through it
_NAMESPACED_LINK = re.compile(
    r"\[\[(?=[^\[\]|:]*:)[ \t]*([^\[\]|:]+?)[ \t]*:[ \t]*([^\[\]|]*?)[ \t]*(\|(?:[^\[\]]|\[\[[^\[\]]*\]\])*)?\]\]"
)
_LINK_TARGET = re.compile(r"\[\[([^\[\]|]+)(?:\|[^\[\]]*)?\]\]")  # [[target]] or [[target|label]]: the target
_LABELLED_LINK = re.compile(r"\[\[[^\[\]|]+\|([^\[\]]*)\]\]")  # [[target|label]] → label
_PLAIN_LINK = re.compile(r"\[\[([^\[\]|]+)\]\]")  # [[target]] → target
_EXTERNAL = re.compile(r"\[(?:https?|ftp)://[^ \]\n]+(?: ([^\]\n]*))?\]")
_QUOTES = re.compile(r"'''?'?'?")  # '{2,5}, greedy
_HEADING = re.compile(r"\n(=+)[ \t]*(.*?)[ \t]*\1[ \t]*$", re.MULTILINE)  # put back as "\n" + the title
_LIST = re.compile(r"\n[*#:;]+[ \t]*")  # put back as "\n"
_SPACES = re.compile(r"[ \t]{2,}|\t")  # single ASCII spaces stay as they are
_TRAILING_SPACES = re.compile(r"[ \t]+\n")
_LEADING_SPACES = re.compile(r"\n[ \t]+")
_BLANK_LINES = re.compile(r"\n\n\n+")

# A group as the replacement without re's per-match template expansion (in Python): itemgetter calls the match's own
# __getitem__ in C. Only for groups that always take part in a match.
_GROUP_1, _GROUP_2 = itemgetter(1), itemgetter(2)


def template_names(wikitext: str) -> list[str]:
    return _TEMPLATE_NAME.findall(wikitext)


def is_disambiguation(names: list[str]) -> bool:
    return any(n.lower() in DISAMBIGUATION_TEMPLATES for n in names)


def is_stub(names: list[str]) -> bool:
    return any(n.lower().endswith("stub") or "スタブ" in n for n in names)


_KINDS = {**{p: "category" for p in CATEGORY_PREFIXES}, **{p: "file" for p in FILE_PREFIXES}}


def _namespace(prefix: str) -> str | None:
    return _KINDS.get(prefix.strip().lower())


def categories_and_links(wikitext: str) -> tuple[list[str], list[str]]:
    """Category names and link targets (without #section), each once, in order of appearance.
    One scan: a link whose target has a Category prefix is a category, a File prefix is skipped."""
    categories: dict[str, None] = {}
    links: dict[str, None] = {}
    if "[[" not in wikitext:
        return [], []
    for target in _LINK_TARGET.findall(wikitext):
        if ":" in target:
            prefix, _, rest = target.partition(":")
            kind = _KINDS.get(prefix.strip().lower())
            if kind == "category":
                rest = rest.strip()
                if rest:
                    categories[rest] = None
                continue
            if kind == "file":
                continue
        if "#" in target:
            target = target[: target.index("#")]
        target = target.strip()
        if target:
            links[target] = None
    return list(categories), list(links)


def _namespaced(m: re.Match) -> str:
    kind = _namespace(m.group(1))
    if kind in ("category", "file"):
        return ""
    label = (m.group(3) or "")[1:]
    return label or f"{m.group(1)}:{m.group(2)}"


def _heading(m: re.Match) -> str:
    return "\n" + m.group(2)


def plain_text(wikitext: str) -> str:
    """Each pass runs only when its markup occurs at all (a substring test is far cheaper than a regex scan); the final
    strip removes the leading newline (see the module's doc)."""
    text = "\n" + wikitext
    if "<!--" in text:
        text = _COMMENT.sub("", text)
    if "<ref" in text or "<REF" in text:
        text = _REF.sub("", text)
    if "\n{|" in text:
        text = _TABLE.sub("\n", text)
    for _ in range(20):  # templates nest: remove the innermost ones until none is left
        if "{{" not in text:
            break
        text, n = _TEMPLATE.subn("", text)
        if not n:
            break
    if "[[" in text:
        if ":" in text or "：" in text:
            text = _NAMESPACED_LINK.sub(_namespaced, text)
        text = _LABELLED_LINK.sub(_GROUP_1, text)
        text = _PLAIN_LINK.sub(_GROUP_1, text)
    if "://" in text:
        text = _EXTERNAL.sub(lambda m: m.group(1) or "", text)
    if "<" in text:
        text = _TAG.sub("", text)
    if "''" in text:
        text = _QUOTES.sub("", text)
    if "\n=" in text:
        text = _HEADING.sub(_heading, text)
    if "\n*" in text or "\n#" in text or "\n:" in text or "\n;" in text:
        text = _LIST.sub("\n", text)
    if "  " in text or "\t" in text:
        text = _SPACES.sub(" ", text)
    if " \n" in text or "\t\n" in text:
        text = _TRAILING_SPACES.sub("\n", text)
    if "\n " in text or "\n\t" in text:
        text = _LEADING_SPACES.sub("\n", text)
    if "\n\n\n" in text:
        text = _BLANK_LINES.sub("\n\n", text)
    return text.strip(" \t\n")
