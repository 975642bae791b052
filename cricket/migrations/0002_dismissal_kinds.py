"""Seed the dismissal kinds the Cricsheet corpus uses (seed 001 §7): whether the bowler is
credited is data, read by every derivation, never a list in code."""

from django.db import migrations

# (name as Cricsheet writes it, code, credits_bowler, is_dismissal)
KINDS = [
    ("bowled", "bowled", True, True),
    ("caught", "caught", True, True),
    ("caught and bowled", "caught-and-bowled", True, True),
    ("lbw", "lbw", True, True),
    ("stumped", "stumped", True, True),
    ("hit wicket", "hit-wicket", True, True),
    ("run out", "run-out", False, True),
    ("handled the ball", "handled-the-ball", False, True),
    ("obstructing the field", "obstructing-the-field", False, True),
    ("hit the ball twice", "hit-the-ball-twice", False, True),
    ("timed out", "timed-out", False, True),
    ("retired out", "retired-out", False, True),
    # A retirement that is not out: recorded as a wicket entry by the source, but the batter
    # is not dismissed.
    ("retired hurt", "retired-hurt", False, False),
    ("retired not out", "retired-not-out", False, False),
]


def seed(apps, schema_editor):
    DismissalKind = apps.get_model("cricket", "DismissalKind")
    for name, code, credits_bowler, is_dismissal in KINDS:
        DismissalKind.objects.update_or_create(
            code=code,
            defaults={"name": name, "credits_bowler": credits_bowler, "is_dismissal": is_dismissal},
        )


def unseed(apps, schema_editor):
    DismissalKind = apps.get_model("cricket", "DismissalKind")
    DismissalKind.objects.filter(code__in=[code for _, code, _, _ in KINDS]).delete()


class Migration(migrations.Migration):
    dependencies = [("cricket", "0001_events")]

    operations = [migrations.RunPython(seed, unseed)]
