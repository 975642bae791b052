"""The search API's query parameters and its answer."""

from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import serializers

from search.selectors import GROUP_KEYS, MAX_LENGTH, MIN_LENGTH, search_query_clean


class SearchParamsSerializer(serializers.Serializer):
    q = serializers.CharField(
        trim_whitespace=False,
        help_text=f"What to find: {MIN_LENGTH} to {MAX_LENGTH} characters. Misspellings and "
        "missing accents are forgiven.",
    )
    kind = serializers.ChoiceField(
        choices=GROUP_KEYS,
        required=False,
        help_text="Only this group of results, with more of them.",
    )

    def validate_q(self, value: str) -> str:
        try:
            return search_query_clean(value)
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.messages) from exc


class SearchHitSerializer(serializers.Serializer):
    group = serializers.ChoiceField(choices=GROUP_KEYS)
    id = serializers.CharField(help_text="The record's id (its primary key).")
    name = serializers.CharField()
    detail = serializers.CharField(help_text="Context to tell like names apart (sport, place).")
    matched = serializers.CharField(
        help_text="The other name the record was found by (an alias, a merged record's "
        "name, another spelling of a brand); empty when its own name matched."
    )
    score = serializers.FloatField(help_text="How well the name matched; higher is better.")
    url = serializers.CharField(allow_null=True, help_text="The record's public page.")


class SearchGroupSerializer(serializers.Serializer):
    key = serializers.ChoiceField(choices=GROUP_KEYS)
    title = serializers.CharField()
    results = SearchHitSerializer(many=True, source="hits")


class SearchAnswerSerializer(serializers.Serializer):
    query = serializers.CharField(help_text="The query as searched (spaces trimmed).")
    groups = SearchGroupSerializer(
        many=True, help_text="Groups with at least one result, the best first."
    )
