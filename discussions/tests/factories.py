import factory
from django.contrib.contenttypes.models import ContentType

from accounts.tests.factories import UserFactory
from discussions.models import Article, ArticleKind, ClientTodo, Comment, DecisionItem, Thread


class DecisionItemFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = DecisionItem

    title = factory.Sequence(lambda n: f"Decision {n}")


class ThreadFactory(factory.django.DjangoModelFactory):
    """A thread on a fresh decision item (any record can be a subject)."""

    class Meta:
        model = Thread
        exclude = ("item",)

    item = factory.SubFactory(DecisionItemFactory)
    subject_type = factory.LazyAttribute(lambda o: ContentType.objects.get_for_model(o.item))
    subject_id = factory.LazyAttribute(lambda o: str(o.item.pk))
    label = factory.LazyAttribute(lambda o: o.item.title)


class CommentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Comment

    thread = factory.SubFactory(ThreadFactory)
    author = factory.SubFactory(UserFactory)
    body = factory.Sequence(lambda n: f"comment number {n}")


class ArticleFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Article

    slug = factory.Sequence(lambda n: f"article-{n}")
    title = factory.Sequence(lambda n: f"Article {n}")
    body_md = "Some *text*."
    kind = ArticleKind.ARTICLE


class ClientTodoFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ClientTodo

    owner = factory.SubFactory(UserFactory)
    title = factory.Sequence(lambda n: f"To-do {n}")
    accepts_files = True
