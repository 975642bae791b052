import os
import socket

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management.base import BaseCommand, CommandError

from ingest.batches import services
from ingest.batches.models import Batch


class Command(BaseCommand):
    help = (
        "Approve or reject a batch awaiting review, as USERNAME, with a reason. Approval "
        "publishes the batch (one transaction per match) before the command returns."
    )

    def add_arguments(self, parser):
        parser.add_argument("batch_id")
        decision = parser.add_mutually_exclusive_group(required=True)
        decision.add_argument("--approve", action="store_true")
        decision.add_argument("--reject", action="store_true")
        parser.add_argument("--reason", required=True)
        parser.add_argument("--as", dest="username", required=True)

    def handle(self, *args, batch_id, approve, reject, reason, username, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No account {username!r}")
        try:
            batch = Batch.objects.get(pk=batch_id)
        except (Batch.DoesNotExist, ValidationError):
            raise CommandError(f"No batch {batch_id!r}") from None
        try:
            batch = services.batch_review(
                batch=batch, reviewer=user, approve=approve, reason=reason
            )
        except PermissionDenied as exc:
            # The service's refusal as it stands: the console and the API show the same text.
            raise CommandError(str(exc)) from None
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        if approve:
            worker = f"cli:{socket.gethostname()}:{os.getpid()}"
            batch = services.batch_publish(batch=batch, worker=worker)
        self.stdout.write(f"batch {batch.pk}: {batch.get_state_display().lower()}")
