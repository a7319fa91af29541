"""Port of group-coordinator/src/main/java/org/apache/kafka/coordinator/group/modern/TopicIds.java (Kafka 3.9).

A read-only set (collections.abc.Set: Kafka's mutators, which all throw UnsupportedOperationException, are simply
absent). Topic ids are uuid.UUID, as the metadata image carries them.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Set

from kafka_edu.v3_9.metadata.image.topics_image import TopicsImage


class TopicIds(Set[uuid.UUID]):
    """The ids of a member's subscribed topics, seen through the topics image: built from names, it resolves each
    name to an id only when asked, so the assignors can work with ids without the group converting every
    subscription up front. A name the image does not know has no id and is skipped."""

    def __init__(self, topic_names: Set[str], image: TopicsImage) -> None:
        if topic_names is None:
            raise TypeError("topicNames")  # Objects.requireNonNull
        if image is None:
            raise TypeError("image")
        self._topic_names = topic_names
        self._image = image

    def size(self) -> int:
        # the number of names, resolvable or not, as Kafka's size() does
        return len(self._topic_names)

    def __len__(self) -> int:
        return self.size()

    def is_empty(self) -> bool:
        return len(self._topic_names) == 0

    def contains(self, o: object) -> bool:
        if isinstance(o, uuid.UUID):
            topic_image = self._image.get_topic(o)
            if topic_image is None:
                return False
            return topic_image.name in self._topic_names
        return False

    def __contains__(self, o: object) -> bool:
        return self.contains(o)

    class TopicIdIterator(Iterator[uuid.UUID]):
        """Walks the names and yields the id of each one the image knows."""

        def __init__(self, iterator: Iterator[str], image: TopicsImage) -> None:
            if iterator is None:
                raise TypeError("iterator")
            if image is None:
                raise TypeError("image")
            self._iterator = iterator
            self._image = image
            self._next: uuid.UUID | None = None

        def has_next(self) -> bool:
            if self._next is not None:
                return True
            result: uuid.UUID | None = None
            while result is None:
                name = next(self._iterator, None)
                if name is None:
                    return False
                topic_image = self._image.get_topic(name)
                if topic_image is not None:
                    result = topic_image.id
            self._next = result
            return True

        def __next__(self) -> uuid.UUID:
            if not self.has_next():
                raise StopIteration  # Java's NoSuchElementException
            result = self._next
            self._next = None
            return result  # type: ignore[return-value]

    def iterator(self) -> TopicIds.TopicIdIterator:
        return TopicIds.TopicIdIterator(iter(self._topic_names), self._image)

    def __iter__(self) -> Iterator[uuid.UUID]:
        return self.iterator()

    def contains_all(self, c: Iterable[object]) -> bool:
        return all(self.contains(o) for o in c)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if other is None or type(other) is not type(self):
            return False
        return self._topic_names == other._topic_names and self._image == other._image

    def __hash__(self) -> int:
        return hash((frozenset(self._topic_names), self._image))

    def __repr__(self) -> str:
        return f"TopicIds(topicNames={set(self._topic_names)}, image={self._image})"
