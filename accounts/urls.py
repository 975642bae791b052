"""Public site pages of the accounts app (mounted at the site root by omnium/urls.py)."""

from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("account/link/<str:token>/", views.token_redeem, name="token-redeem"),
    path("account/reset/", views.reset_request, name="reset-request"),
    path("account/sessions/", views.my_sessions, name="my-sessions"),
    path("account/access/", views.my_access, name="my-access"),
    path("account/acting-as/", views.acting_as_stop, name="acting-as-stop"),
    path("newsletter/", views.subscribe, name="subscribe"),
    path("newsletter/unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("newsletter/confirm/<str:token>/", views.subscribe_confirm, name="subscribe-confirm"),
]
