"""Port of clients/src/main/java/org/apache/kafka/common/utils/PrimitiveRef.java (Kafka 3.9): a mutable int or long
passed by reference, such as the offset counter LogValidator advances as it assigns offsets."""

from __future__ import annotations


class IntRef:
    def __init__(self, value: int) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"IntRef({self.value})"


class LongRef:
    def __init__(self, value: int) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"LongRef({self.value})"


class PrimitiveRef:
    IntRef = IntRef
    LongRef = LongRef

    @staticmethod
    def of_int(value: int) -> IntRef:
        return IntRef(value)

    @staticmethod
    def of_long(value: int) -> LongRef:
        return LongRef(value)
