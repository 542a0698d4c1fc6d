"""Renders a Markdown file as GitHub does its job summary (cmark-gfm: tables, strikethrough,
autolinks, raw HTML) and prints the HTML, for JobSummaryTests.

usage: render_gfm.py FILE.md"""
import sys

import cmarkgfm
from cmarkgfm.cmark import Options

with open(sys.argv[1], encoding="utf-8") as source:
    print(cmarkgfm.github_flavored_markdown_to_html(source.read(), options=Options.CMARK_OPT_UNSAFE), end="")
