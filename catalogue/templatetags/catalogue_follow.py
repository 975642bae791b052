"""The follow control of a product page (``templates/catalogue/_follow.html``)."""

from __future__ import annotations

from typing import Any

from django import template

from catalogue.alert_records import Follow
from catalogue.forms import FollowForm

register = template.Library()


@register.inclusion_tag("catalogue/_follow.html", takes_context=True)
def follow_control(context: template.Context, product: Any) -> dict[str, Any]:
    """Follow or unfollow ``product``: for an anonymous reader, a sign-in link (no query);
    for an account, its follow of the product (or of one merged into it) in one query."""
    request = context["request"]
    follow = None
    if request.user.is_authenticated:
        follow = Follow.objects.of_products([product.pk]).filter(user=request.user).first()
    return {
        "product": product,
        "follow": follow,
        "form": FollowForm(),
        "request": request,
        "user": request.user,
        "csrf_token": context.get("csrf_token"),
    }
