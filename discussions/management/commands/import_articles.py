from __future__ import annotations

import re
from pathlib import Path

import mammoth
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.utils.text import slugify
from tqdm import tqdm

from accounts.models import User
from discussions.models import ArticleKind, ClientUpload
from discussions.services import article_import

READERS = {".md": "markdown", ".markdown": "markdown", ".txt": "text", ".docx": "word"}
HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$")


def read_markdown(path: Path) -> str:
    """The file's text as Markdown. Plain text is Markdown already (paragraphs survive);
    Word goes through mammoth, which keeps structure (headings, lists, emphasis) and drops
    the styling a hand-in carries."""
    kind = READERS.get(path.suffix.lower())
    if kind is None:
        raise CommandError(f"{path}: unsupported type {path.suffix!r} (use .md, .txt or .docx)")
    if kind == "word":
        with path.open("rb") as handle:
            result = mammoth.convert_to_markdown(handle)
        return result.value
    return path.read_text(encoding="utf-8")


def split_title(text: str, fallback: str) -> tuple[str, str]:
    """A leading ``# Heading`` is the title; the rest is the body."""
    lines = text.strip().splitlines()
    if lines:
        match = HEADING.match(lines[0].replace("\\", ""))
        if match:
            return match.group(1).strip(), "\n".join(lines[1:]).strip() + "\n"
    return fallback, text.strip() + "\n"


class Command(BaseCommand):
    help = (
        "Import articles from Markdown (.md), plain text (.txt) or Word (.docx) files. "
        "Idempotent on the slug (the file name unless --slug): a re-import replaces the "
        "text and never changes whether the article is published."
    )

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="*", type=Path)
        parser.add_argument(
            "--upload",
            help="id of a client upload to import (recorded as the article's source)",
        )
        parser.add_argument("--kind", choices=ArticleKind.values, default=ArticleKind.ARTICLE)
        parser.add_argument("--airport", help="IATA code (airport write-ups)")
        parser.add_argument("--category", help="category key (category intros)")
        parser.add_argument("--slug", help="slug for a single file")
        parser.add_argument("--author", help="username recorded as author and actor")

    def handle(self, *args, paths, kind, airport, category, slug, author, upload, **options):
        source_upload = None
        if upload:
            source_upload = ClientUpload.objects.filter(pk=upload).first()
            if source_upload is None:
                raise CommandError(f"--upload: no client upload {upload!r}")
            paths = [*paths, Path(source_upload.file.path)]
            slug = slug or slugify(Path(source_upload.original_name).stem)
        if not paths:
            raise CommandError("Name at least one file (or --upload).")
        if slug and len(paths) > 1:
            raise CommandError("--slug names one article: give one file with it.")
        actor = None
        if author:
            actor = User.objects.filter(username=author).first()
            if actor is None:
                raise CommandError(f"--author: no account {author!r}")
        created = existing = 0
        for path in tqdm(paths, disable=len(paths) < 5, unit="file"):
            if not path.is_file():
                raise CommandError(f"{path}: no such file")
            text = read_markdown(path)
            title, body = split_title(text, fallback=path.stem.replace("-", " ").strip().title())
            if not body.strip():
                raise CommandError(f"{path}: the file has no body text")
            try:
                _, was_created = article_import(
                    slug=slug or slugify(path.stem),
                    title=title,
                    body_md=body,
                    kind=kind,
                    airport_code=airport,
                    category=category,
                    actor=actor,
                    source_upload=source_upload,
                )
            except ValidationError as error:
                raise CommandError(f"{path}: {'; '.join(error.messages)}") from error
            created += was_created
            existing += not was_created
        self.stdout.write(f"{created} created, {existing} re-imported")
