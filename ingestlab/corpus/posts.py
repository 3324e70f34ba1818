"""Deterministic ``posts`` documents ``{user, postDate, message}`` for the bulk-vs-single study: Faker fills pools
once per seed, then a seeded ``random.Random`` draws from them, so any size streams at constant memory.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from typing import Iterator

import orjson

DEFAULT_SEED = 2017
USERS = 2_000
SENTENCES = 10_000
START = datetime(2017, 9, 1, tzinfo=timezone.utc)


class PostsGenerator:
    def __init__(self, seed: int = DEFAULT_SEED):
        from faker import Faker  # heavy: only when generating posts

        fake = Faker("en_US")
        fake.seed_instance(seed)
        self.users = [fake.user_name() for _ in range(USERS)]
        self.sentences = [fake.sentence(nb_words=12, variable_nb_words=True) for _ in range(SENTENCES)]
        self.seed = seed

    def documents(self, count: int) -> Iterator[dict]:
        rng = random.Random(self.seed)
        choice, users, sentences = rng.choice, self.users, self.sentences
        when = START
        for _ in range(count):
            when += timedelta(milliseconds=rng.randint(1, 60_000))
            words = " ".join(choice(sentences) for _ in range(rng.randint(1, 3)))
            yield {
                "user": choice(users),
                "postDate": when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z",
                "message": words,
            }

    def lines(self, count: int) -> Iterator[bytes]:
        dumps = orjson.dumps
        for doc in self.documents(count):
            yield dumps(doc) + b"\n"
