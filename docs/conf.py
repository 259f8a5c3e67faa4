# Sphinx configuration of the scanmd manual (Debian: python3-sphinx, python3-myst-parser).
# Build: sphinx-build -W -b html docs build/docs   (scripts/test.sh does, warnings as errors)
import glob
import os
import re

project = "scanmd"
author = "the scanmd authors"
copyright = "the scanmd authors (MIT License)"
extensions = ["myst_parser"]
source_suffix = {".md": "markdown"}
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]
exclude_patterns = ["_build", "_generated"]
html_theme = "alabaster"
html_theme_options = {"page_width": "1320px", "sidebar_width": "230px"}
html_static_path = []
# Pages show code as it is typed: no smart quotes in commands.
smartquotes = False

_here = os.path.dirname(os.path.abspath(__file__))


def _more_pages(app, docname, source):
    """The index's toctree gets every page not listed there (pages other work adds, such as
    a pair style's or a model's own page), in name order, where it says <!-- more pages -->."""
    if docname != "index":
        return
    text = source[0]
    listed = set(re.findall(r"^([a-z0-9_-]+)\s*$", text, flags=re.M))
    pages = sorted(os.path.splitext(os.path.basename(p))[0]
                   for p in glob.glob(os.path.join(_here, "*.md")))
    extra = [p for p in pages if p != "index" and p not in listed]
    source[0] = text.replace("<!-- more pages -->", "\n".join(extra))


def setup(app):
    app.connect("source-read", _more_pages)
