"""Sphinx extension for a book that works offline.

Sphinx 7.4 emits some extensions' script tags twice (e.g. sphinx-thebe's, which then fails with "already
declared"), and thebe itself would fetch its bundle from a CDN to run cells on a remote kernel, which this
book does not offer. This drops duplicate script tags and thebe's scripts from every page.
"""


def _clean_scripts(app, pagename, templatename, context, doctree):
    seen, kept = set(), []
    for script in context.get("script_files", []):
        key = (str(getattr(script, "filename", script)), str(getattr(script, "attributes", {}).get("body", "")))
        if key in seen or "thebe" in key[0] or "THEBE" in key[1]:
            continue
        seen.add(key)
        kept.append(script)
    context["script_files"] = kept


def setup(app):
    app.connect("html-page-context", _clean_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
