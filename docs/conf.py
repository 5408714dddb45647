# Sphinx configuration of the documentation site that ships inside the wheel (`ccsim docs`;
# scripts/build_docs.sh builds it into python/ccsim/_docs_site/). The pages are the Markdown files
# of docs/, read by MyST; the site works from file:// (Sphinx's search index is a script, not a
# fetched file), so it needs no server.
project = "ccsim"
author = "the ccsim authors"
extensions = ["myst_parser"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
# Headings get anchors (`scenarios.md#output-directories` links resolve).
myst_heading_anchors = 4
myst_enable_extensions = ["dollarmath"]
# Pages cite each other as `docs/x.md` text and code as paths; neither is a document reference.
suppress_warnings = ["myst.header", "myst.xref_missing", "misc.highlighting_failure"]
html_theme = "alabaster"
html_title = "ccsim documentation"
html_theme_options = {"page_width": "min(96%, 1500px)", "body_max_width": "none", "sidebar_width": "260px", "fixed_sidebar": True}
html_show_sourcelink = True
html_copy_source = True  # _sources/PAGE.md.txt: what `ccsim docs --print` prints
html_last_updated_fmt = None
