"""Forms of the catalogue's public pages: the query strings they read, and what a person
typed (the rules of a valid follow live in the services, which name the wrong field)."""

from __future__ import annotations

import re
from datetime import date

from django import forms

from catalogue.rates import DEFAULT_DISPLAY, DISPLAY_CHOICES


class FollowForm(forms.Form):
    target_price = forms.DecimalField(
        required=False, max_digits=12, decimal_places=2, label="Target price"
    )
    target_currency = forms.CharField(required=False, max_length=3, label="Currency")
    drop_percent = forms.DecimalField(
        required=False, max_digits=5, decimal_places=2, label="Or a drop of at least (%)"
    )
    airports = forms.CharField(
        required=False,
        max_length=200,
        label="Only at airports",
        help_text="Airport codes such as LHR DXB; empty for every airport.",
    )

    def clean_airports(self) -> list[str]:
        return [code for code in re.split(r"[\s,;]+", self.cleaned_data["airports"]) if code]


class HistoryForm(forms.Form):
    """The reader's display currency and the first day of the price history."""

    currency = forms.ChoiceField(choices=DISPLAY_CHOICES, required=False, label="Currency")
    since = forms.DateField(required=False, label="Since", widget=forms.DateInput({"type": "date"}))

    def choice(self) -> tuple[str, date | None]:
        """(currency, since): the defaults where a value is missing or does not parse."""
        if not self.is_valid():
            return DEFAULT_DISPLAY, None
        return self.cleaned_data["currency"] or DEFAULT_DISPLAY, self.cleaned_data["since"]
