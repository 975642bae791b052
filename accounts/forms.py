from __future__ import annotations

from django import forms

from accounts.models import Role

SUBSCRIBE_CONSENT = (
    "I agree that omnium may e-mail me its newsletter. I can unsubscribe at any time with the "
    "link in every issue."
)
INTERESTS = [("fragrance", "Fragrance"), ("spirits", "Spirits"), ("sport", "Sport results")]


class SetPasswordForm(forms.Form):
    password = forms.CharField(widget=forms.PasswordInput, strip=False)
    password_again = forms.CharField(widget=forms.PasswordInput, strip=False)

    def clean(self):
        data = super().clean()
        if data.get("password") != data.get("password_again"):
            raise forms.ValidationError("The two passwords differ.")
        return data


class ResetRequestForm(forms.Form):
    email = forms.EmailField()


class SubscribeForm(forms.Form):
    email = forms.EmailField()
    first_name = forms.CharField(max_length=100, required=False)
    last_name = forms.CharField(max_length=100, required=False)
    home_airport = forms.RegexField(regex=r"^[A-Za-z]{3}$", required=False, max_length=3)
    interests = forms.MultipleChoiceField(
        choices=INTERESTS, required=False, widget=forms.CheckboxSelectMultiple
    )
    consent = forms.BooleanField(label=SUBSCRIBE_CONSENT)
    # Honeypot: hidden from people by CSS; a bot that fills every field gives itself away.
    website = forms.CharField(required=False, label="Leave this empty")


class InviteForm(forms.Form):
    username = forms.CharField(max_length=150)
    email = forms.EmailField()
    display_name = forms.CharField(max_length=150, required=False)
    role = forms.ChoiceField(choices=Role.choices)


class ReasonForm(forms.Form):
    reason = forms.CharField(max_length=300)


class AccessRequestForm(forms.Form):
    competition = forms.CharField(
        max_length=130,
        help_text="The competition's code, or SPORT:CODE when two sports share a code.",
    )
    message = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        max_length=2000,
        help_text="Who you are and what you would submit.",
    )
