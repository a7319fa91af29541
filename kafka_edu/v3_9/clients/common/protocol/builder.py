"""Build kio request/response objects of any version from plain Python values.

KafkaApis answers many versions of each API; their kio classes differ in fields. `build(schema, **values)` keeps
the fields the version has (dropping the rest, as Kafka's versioned serializers ignore absent fields), turns dicts
into the version's nested classes and millisecond ints into the timedeltas kio uses.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
from typing import Any

from kio.serial._introspect import EntityField, EntityTupleField, PrimitiveField, classify_field


def build(schema: type[Any], **values: Any) -> Any:
    kwargs = {}
    for name, kind, inner in _plan(schema):
        if name not in values:
            continue
        value = values[name]
        if value is None or kind is _PLAIN:
            kwargs[name] = value
        elif kind is _ENTITIES:
            kwargs[name] = tuple(build(inner, **item) if isinstance(item, dict) else item for item in value)
        elif kind is _ENTITY:
            kwargs[name] = build(inner, **value) if isinstance(value, dict) else value
        else:  # _MILLIS
            kwargs[name] = datetime.timedelta(milliseconds=value) if isinstance(value, int) else value
    return schema(**kwargs)


_PLAIN, _ENTITIES, _ENTITY, _MILLIS = "plain", "entities", "entity", "millis"


@functools.cache  # a response is built on every request: kio's field introspection once per class, not per field
def _plan(schema: type[Any]) -> tuple[tuple[str, str, type[Any] | None], ...]:
    """Each field of `schema`: its name, how `build` converts a plain value for it, and the nested class if any."""
    plan = []
    for f in dataclasses.fields(schema):
        kind = classify_field(f)
        if isinstance(kind, EntityTupleField):
            plan.append((f.name, _ENTITIES, kind.type_))
        elif isinstance(kind, EntityField):
            plan.append((f.name, _ENTITY, kind.type_))
        elif (isinstance(kind, PrimitiveField) and isinstance(kind.type_, type)
              and issubclass(kind.type_, datetime.timedelta)):
            plan.append((f.name, _MILLIS, None))
        else:
            plan.append((f.name, _PLAIN, None))
    return tuple(plan)


def values(entity: Any) -> dict[str, Any]:
    """The inverse of `build`: a kio object's fields as plain values (nested objects as dicts, timedeltas as
    milliseconds), ready to `build` the same message at another version."""
    out = {}
    for name, kind, _ in _plan(type(entity)):  # a plain field is kept as it is, without looking at its value
        value = getattr(entity, name)
        if kind is _ENTITIES:
            if value and _is_entity(type(value[0])):  # an empty tuple stays one
                value = [values(item) for item in value]
        elif kind is _ENTITY:
            if _is_entity(type(value)):
                value = values(value)
        elif kind is _MILLIS and type(value) is datetime.timedelta:
            value = value // _MILLISECOND
        out[name] = value
    return out


_MILLISECOND = datetime.timedelta(milliseconds=1)


def _is_entity(cls: type[Any]) -> bool:
    return hasattr(cls, "__dataclass_fields__")  # what dataclasses.is_dataclass asks of a class
