"""The size limit of one multipart request, enforced while it streams in.

Django's own handlers (after this one in ``FILE_UPLOAD_HANDLERS``) keep a file in memory
only up to ``FILE_UPLOAD_MAX_MEMORY_SIZE`` and stream the rest to a temporary file; this one
refuses the request once its declared length, or the file bytes actually received, pass
``UPLOAD_MAX_REQUEST_BYTES`` (so no upload fills a worker's disk either).
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.core.files.uploadhandler import FileUploadHandler


class UploadTooLarge(RequestDataTooBig):
    """A multipart request over ``UPLOAD_MAX_REQUEST_BYTES``; the message names the limit."""

    def __init__(self, what: str, limit: int) -> None:
        super().__init__(f"{what}; the limit is UPLOAD_MAX_REQUEST_BYTES = {limit}")


def upload_too_large(declared: int) -> UploadTooLarge:
    return UploadTooLarge(
        f"the request body is {declared} bytes", settings.UPLOAD_MAX_REQUEST_BYTES
    )


class RequestSizeLimitUploadHandler(FileUploadHandler):
    """Counts every file chunk of the request and passes it on unchanged."""

    def handle_raw_input(self, input_data, META, content_length, boundary, encoding=None) -> None:
        self.limit = settings.UPLOAD_MAX_REQUEST_BYTES
        self.received = 0
        if content_length > self.limit:
            raise upload_too_large(content_length)

    def receive_data_chunk(self, raw_data: bytes, start: int) -> bytes:
        self.received += len(raw_data)
        if self.received > self.limit:
            raise UploadTooLarge(
                f"{self.file_name}: the request's files pass {self.limit} bytes", self.limit
            )
        return raw_data

    def file_complete(self, file_size: int) -> None:
        return None
