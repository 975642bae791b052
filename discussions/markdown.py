"""The one Markdown renderer: every page and API field that shows a body calls this, so no
two surfaces can render the same text differently.

Markdown allows raw HTML, and bodies come from people and from imported Word files, so the
HTML is sanitised with an allow-list (nh3) after rendering, never trusted as written.
"""

from __future__ import annotations

import markdown
import nh3
from django.utils.safestring import SafeString, mark_safe

_TAGS = {
    "a", "abbr", "blockquote", "br", "code", "dd", "del", "dl", "dt", "em", "h2", "h3", "h4",
    "h5", "h6", "hr", "img", "li", "ol", "p", "pre", "strong", "sub", "sup", "table", "tbody",
    "td", "th", "thead", "tr", "ul",
}  # fmt: skip
_ATTRIBUTES = {
    "a": {"href", "title"},
    "img": {"src", "alt", "title"},
    "th": {"align"},
    "td": {"align"},
    "abbr": {"title"},
}


def render_markdown(text: str) -> SafeString:
    html = markdown.markdown(text or "", extensions=["extra", "sane_lists"], output_format="html")
    clean = nh3.clean(
        html,
        tags=_TAGS,
        attributes=_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer nofollow",
    )
    return mark_safe(clean)  # noqa: S308 - sanitised by nh3 on the line above
