"""Query-string forms of the public catalogue pages."""

from __future__ import annotations

from datetime import date

from django import forms

from catalogue.rates import DEFAULT_DISPLAY, DISPLAY_CHOICES


class HistoryForm(forms.Form):
    """The reader's display currency and the first day of the price history."""

    currency = forms.ChoiceField(choices=DISPLAY_CHOICES, required=False, label="Currency")
    since = forms.DateField(required=False, label="Since", widget=forms.DateInput({"type": "date"}))

    def choice(self) -> tuple[str, date | None]:
        """(currency, since): the defaults where a value is missing or does not parse."""
        if not self.is_valid():
            return DEFAULT_DISPLAY, None
        return self.cleaned_data["currency"] or DEFAULT_DISPLAY, self.cleaned_data["since"]
