"""Read a page's tables and select lists as plain text, for the page tests (the standard
library's parser: a row is its cells' text, a select is its options and the chosen one)."""

from __future__ import annotations

from html.parser import HTMLParser


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.selects: dict[str, dict] = {}
        self.links: list[str] = []
        self._table: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._select: str | None = None
        self._option: tuple[str, bool] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self._table = a.get("class", "") or f"table{len(self.tables)}"
            self.tables[self._table] = []
        elif tag == "tr" and self._table is not None:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "select":
            self._select = a["name"]
            self.selects[self._select] = {"options": [], "selected": None}
        elif tag == "option" and self._select is not None:
            self._option = (a.get("value", ""), "selected" in a)
        elif tag == "a" and "href" in a:
            self.links.append(a["href"])

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table is not None:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None
        elif tag == "select":
            self._select = None
        elif tag == "option" and self._option is not None and self._select is not None:
            value, selected = self._option
            self.selects[self._select]["options"].append(value)
            if selected:
                self.selects[self._select]["selected"] = value
            self._option = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def read_page(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


def table(page: _Page, css_class: str) -> tuple[list[str], list[list[str]]]:
    """The header row and the body rows of the first table whose class names css_class."""
    for name, rows in page.tables.items():
        if css_class in name.split():
            return rows[0], rows[1:]
    raise AssertionError(f"no table of class {css_class!r}; tables: {list(page.tables)}")
