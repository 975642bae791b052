from __future__ import annotations

from django import forms

from discussions.models import AskKind, Outcome


class CommentForm(forms.Form):
    body = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), max_length=10_000)


class AskForm(forms.Form):
    for_username = forms.CharField(max_length=150, label="Ask")
    note = forms.CharField(max_length=500)
    kind = forms.ChoiceField(choices=AskKind.choices)


class ResolveForm(forms.Form):
    outcome = forms.ChoiceField(choices=Outcome.choices)
    closing_body = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)


class FollowupForm(forms.Form):
    note = forms.CharField(max_length=500)
