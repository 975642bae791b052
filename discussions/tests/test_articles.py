import io

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from discussions.markdown import render_markdown
from discussions.models import Article, ArticleStatus
from discussions.services import article_import, article_publish
from discussions.tests.factories import ArticleFactory

pytestmark = pytest.mark.django_db


def _published(**extra):
    return ArticleFactory(status=ArticleStatus.PUBLISHED, published_at=timezone.now(), **extra)


def test_a_draft_is_a_404_even_at_its_own_address(client):
    draft = ArticleFactory(slug="secret-plans")
    assert client.get(f"/articles/{draft.slug}/").status_code == 404


def test_a_published_article_renders_its_markdown(client, django_assert_num_queries):
    article = _published(slug="hello", body_md="Some **bold** claim.")
    with django_assert_num_queries(1):
        page = client.get(f"/articles/{article.slug}/").content.decode()
    assert "<strong>bold</strong>" in page


def test_the_list_shows_published_articles_only(client, django_assert_num_queries):
    _published(title="Out in the open")
    ArticleFactory(title="Still a draft")
    with django_assert_num_queries(1):
        page = client.get("/articles/").content.decode()
    assert "Out in the open" in page
    assert "Still a draft" not in page


def test_the_articles_section_is_in_the_site_navigation(client):
    assert 'href="/articles/"' in client.get("/").content.decode()


def test_the_renderer_strips_scripts_and_event_handlers():
    html = render_markdown('<script>alert(1)</script><p onclick="x()">hi</p>[a](javascript:y)')
    assert "<script" not in html
    assert "onclick" not in html
    assert "javascript:" not in html


def test_the_renderer_keeps_links_and_lists():
    html = render_markdown("- one\n- [two](https://example.org)")
    assert "<li>one</li>" in html
    assert 'href="https://example.org"' in html


def test_published_queryset_excludes_drafts():
    _published(slug="p")
    ArticleFactory(slug="d")
    assert list(Article.objects.published().values_list("slug", flat=True)) == ["p"]


def test_reimport_replaces_the_text_and_keeps_the_status(editor):
    article, _ = article_import(slug="guide", title="Guide", body_md="v1", actor=editor)
    article_publish(article=article, actor=editor)
    article, created = article_import(slug="guide", title="Guide", body_md="v2", actor=editor)
    article.refresh_from_db()
    assert not created
    assert (article.body_md, article.status) == ("v2", ArticleStatus.PUBLISHED)


def test_an_airport_writeup_needs_an_airport_code(editor):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError):
        article_import(slug="x", title="X", body_md="b", kind="airport_writeup", actor=editor)


def test_import_articles_reads_markdown_with_its_heading_as_title(tmp_path):
    source = tmp_path / "duty-free-guide.md"
    source.write_text("# The Duty-Free Guide\n\nBuy *less*.\n")
    call_command("import_articles", str(source), stdout=io.StringIO())
    article = Article.objects.get(slug="duty-free-guide")
    assert article.title == "The Duty-Free Guide"
    assert article.body_md.strip() == "Buy *less*."
    assert article.status == ArticleStatus.DRAFT


def test_import_articles_is_idempotent_on_slug(tmp_path):
    source = tmp_path / "note.txt"
    source.write_text("first text")
    call_command("import_articles", str(source), stdout=io.StringIO())
    source.write_text("second text")
    call_command("import_articles", str(source), stdout=io.StringIO())
    assert Article.objects.count() == 1
    assert Article.objects.get().body_md.strip() == "second text"


def test_import_articles_reads_word_documents(tmp_path):
    import docx

    document = docx.Document()
    document.add_heading("Lounges at LHR", level=1)
    paragraph = document.add_paragraph("Terminal 5 has ")
    paragraph.add_run("three").bold = True
    paragraph.add_run(" lounges.")
    path = tmp_path / "lhr.docx"
    document.save(path)
    call_command(
        "import_articles", str(path), "--kind", "airport_writeup", "--airport", "lhr",
        stdout=io.StringIO(),
    )  # fmt: skip
    article = Article.objects.get(slug="lhr")
    assert article.title == "Lounges at LHR"
    assert article.airport_code == "LHR"
    assert "__three__" in article.body_md or "**three**" in article.body_md


def test_import_articles_refuses_an_unknown_file_type(tmp_path):
    source = tmp_path / "sheet.xlsx"
    source.write_bytes(b"PK")
    with pytest.raises(CommandError, match="unsupported type"):
        call_command("import_articles", str(source), stdout=io.StringIO())


def test_an_airports_writeup_is_found_by_its_code_only_when_published(editor):
    article, _ = article_import(
        slug="lhr", title="LHR", body_md="b", kind="airport_writeup", airport_code="lhr",
        actor=editor,
    )  # fmt: skip
    assert not Article.objects.airport_writeup("LHR").exists()
    article_publish(article=article, actor=editor)
    assert Article.objects.airport_writeup("lhr").get() == article


def test_a_category_intro_is_found_by_its_category(editor):
    article, _ = article_import(
        slug="gin", title="Gin", body_md="b", kind="category_intro", category="gin", actor=editor
    )
    article_publish(article=article, actor=editor)
    assert Article.objects.category_intro("gin").get() == article
    assert not Article.objects.category_intro("rum").exists()


def test_import_articles_from_a_client_upload_records_its_source(tmp_path, settings, viewer):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from discussions.services import upload_add
    from discussions.tests.factories import ClientTodoFactory

    settings.PRIVATE_MEDIA_ROOT = tmp_path
    upload = upload_add(
        todo=ClientTodoFactory(owner=viewer),
        file=SimpleUploadedFile("spring-guide.md", b"# Spring Guide\n\nFresh stock.\n"),
        actor=viewer,
    )
    call_command("import_articles", "--upload", str(upload.pk), stdout=io.StringIO())
    article = Article.objects.get(slug="spring-guide")
    assert article.source_upload == upload
    assert article.title == "Spring Guide"


def test_the_article_api_lists_published_articles_only(anon_client, django_assert_num_queries):
    _published(slug="open", body_md="**hi**")
    ArticleFactory(slug="draft")
    with django_assert_num_queries(2):  # the cursor page and the anonymous admission
        rows = anon_client.get("/api/v1/articles/").json()["results"]
    assert [row["slug"] for row in rows] == ["open"]
    assert rows[0]["body_html"] == "<p><strong>hi</strong></p>"


def test_a_draft_is_a_404_in_the_api(anon_client):
    ArticleFactory(slug="draft")
    assert anon_client.get("/api/v1/articles/draft/").status_code == 404


def test_the_api_and_the_page_render_the_same_html(client, anon_client):
    article = _published(slug="same", body_md="A [link](https://example.org) and *emphasis*.")
    api_html = anon_client.get(f"/api/v1/articles/{article.slug}/").json()["body_html"]
    assert api_html in client.get(f"/articles/{article.slug}/").content.decode()
