"""Forms of the catalogue's public pages. They parse what a person typed; the rules (what
a valid follow is) live in the services, which name the field that is wrong."""

from __future__ import annotations

import re

from django import forms


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
