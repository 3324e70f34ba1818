"""The docs' measured figures and claims, rendered from data (``make docs``: ``python -m devtools.docs.render``)
between markers in the Markdown files."""
