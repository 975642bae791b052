"""Multipart uploads: over FILE_UPLOAD_MAX_MEMORY_SIZE a file streams to disk, and the
request is refused once its declared length or the file bytes actually received pass
UPLOAD_MAX_REQUEST_BYTES (omnium.uploads)."""

import io

import pytest
from django.conf import settings as django_settings
from django.core.files.uploadedfile import TemporaryUploadedFile
from django.core.files.uploadhandler import load_handler
from django.http.multipartparser import MultiPartParser
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart

from omnium.uploads import RequestSizeLimitUploadHandler, UploadTooLarge


def _parse(size: int, *, declared: int | None = None):
    body = encode_multipart(BOUNDARY, {"file": io.BytesIO(b"x" * size)})
    meta = {"CONTENT_TYPE": MULTIPART_CONTENT, "CONTENT_LENGTH": str(declared or len(body))}
    handlers = [load_handler(path) for path in django_settings.FILE_UPLOAD_HANDLERS]
    return MultiPartParser(meta, io.BytesIO(body), handlers).parse()


def test_an_uploaded_file_over_the_memory_threshold_streams_to_disk(settings):
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1024
    _, files = _parse(4096)
    assert isinstance(files["file"], TemporaryUploadedFile)


def test_a_request_declaring_more_than_the_limit_is_refused_before_it_is_read(settings):
    settings.UPLOAD_MAX_REQUEST_BYTES = 1024
    with pytest.raises(UploadTooLarge, match="the limit is UPLOAD_MAX_REQUEST_BYTES = 1024"):
        _parse(10, declared=4096)


def test_file_bytes_received_past_the_limit_are_refused_while_they_stream(settings):
    # A request without a declared length (chunked, or an ASGI body) is counted as it comes.
    settings.UPLOAD_MAX_REQUEST_BYTES = 1024
    handler = RequestSizeLimitUploadHandler()
    handler.handle_raw_input(None, {}, 0, b"")
    handler.new_file("file", "big.json", "application/json", None)
    assert handler.receive_data_chunk(b"x" * 1000, 0) == b"x" * 1000
    with pytest.raises(UploadTooLarge, match=r"big\.json: .*UPLOAD_MAX_REQUEST_BYTES = 1024"):
        handler.receive_data_chunk(b"x" * 100, 1000)
