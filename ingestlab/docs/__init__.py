"""The docs' measured figures and claims, rendered from data (``make docs``) between markers in the Markdown files."""
