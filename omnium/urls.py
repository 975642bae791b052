from django.conf import settings
from django.contrib import admin
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from omnium import views
from omnium.apis import ApiRootView

admin.site.site_header = "omnium console"
admin.site.site_title = "omnium console"
admin.site.index_title = "Curation"

APPS = ("accounts", "sports", "catalogue", "discussions", "ingest")

# Each app owns its API routes in <app>/api_urls.py and its pages in <app>/urls.py.
api_v1: list[URLPattern | URLResolver] = [
    path("", ApiRootView.as_view(), name="api-root"),
    *[path("", include(f"{app}.api_urls")) for app in APPS],
    # The merge-candidate queue has an API and no public pages.
    path("", include("curation.api_urls")),
    path("", include("cricket.api_urls")),
    path("", include("cricket.stats.api_urls")),
    path("", include("search.api_urls")),
]

handler400 = "omnium.views.bad_request"
handler404 = "omnium.views.not_found"
handler500 = "omnium.views.server_error"

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    *[path("", include(f"{app}.urls", namespace=app)) for app in APPS],
    path("", include("cricket.urls", namespace="cricket")),
    path("", include("cricket.stats.urls", namespace="cricket_stats")),
    path("", include("search.urls", namespace="search")),
]
if settings.BENCH_BARE_VIEW:
    urlpatterns.append(path("bench/bare", views.bench_bare, name="bench-bare"))
