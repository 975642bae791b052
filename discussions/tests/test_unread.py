import pytest

from discussions import services
from discussions.models import Thread
from discussions.tests.factories import ThreadFactory

pytestmark = pytest.mark.django_db


def _unread(thread, user):
    return Thread.objects.with_unread_count(user).get(pk=thread.pk).unread_count


def test_every_comment_by_others_is_unread_before_the_first_open(viewer, editor):
    thread = ThreadFactory()
    services.comment_post(thread=thread, body="one", actor=editor)
    services.comment_post(thread=thread, body="two", actor=editor)
    assert _unread(thread, viewer) == 2


def test_opening_a_thread_clears_its_unread(viewer, editor):
    thread = ThreadFactory()
    services.comment_post(thread=thread, body="one", actor=editor)
    services.thread_read_mark(thread=thread, user=viewer)
    assert _unread(thread, viewer) == 0


def test_comments_after_the_last_open_are_unread(viewer, editor):
    thread = ThreadFactory()
    services.comment_post(thread=thread, body="one", actor=editor)
    services.thread_read_mark(thread=thread, user=viewer)
    services.comment_post(thread=thread, body="two", actor=editor)
    services.comment_post(thread=thread, body="three", actor=editor)
    assert _unread(thread, viewer) == 2


def test_ones_own_comments_are_never_unread(submitter):
    thread = ThreadFactory()
    services.comment_post(thread=thread, body="mine", actor=submitter)
    assert _unread(thread, submitter) == 0


def test_deleted_comments_are_not_unread(viewer, editor):
    thread = ThreadFactory()
    comment = services.comment_post(thread=thread, body="oops", actor=editor)
    services.comment_delete(comment=comment, actor=editor)
    assert _unread(thread, viewer) == 0


def test_a_read_mark_never_moves_back(viewer, editor):
    thread = ThreadFactory()
    later = services.thread_read_mark(thread=thread, user=viewer).read_at
    earlier = later.replace(year=later.year - 1)
    assert services.thread_read_mark(thread=thread, user=viewer, at=earlier).read_at == later


def test_unread_counts_are_per_thread_in_one_query(viewer, editor, django_assert_num_queries):
    first, second = ThreadFactory(), ThreadFactory()
    services.comment_post(thread=first, body="a", actor=editor)
    services.comment_post(thread=second, body="b", actor=editor)
    services.comment_post(thread=second, body="c", actor=editor)
    with django_assert_num_queries(1):
        counts = {
            t.pk: t.unread_count
            for t in Thread.objects.with_unread_count(viewer).filter(pk__in=[first.pk, second.pk])
        }
    assert counts == {first.pk: 1, second.pk: 2}
