"""Our own code, not a Kafka port: the guided-lesson framework. The lessons themselves live in `lessons/`, one module
each; this package holds what they are made of (`model`), the trace questions they share (`traces`), the runner,
the prompts and the progress store."""

from kafka_edu.lessons.model import (
    Command,
    Do,
    Evidence,
    Lesson,
    Predict,
    ProcessExit,
    ProcessPause,
    Result,
    Step,
    fill,
)

__all__ = ["Command", "Do", "Evidence", "Lesson", "Predict", "ProcessExit", "ProcessPause", "Result", "Step", "fill"]
