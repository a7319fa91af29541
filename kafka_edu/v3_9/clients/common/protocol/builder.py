"""Build kio request/response objects of any version from plain Python values.

KafkaApis answers many versions of each API; their kio classes differ in fields. `build(schema, **values)` keeps
the fields the version has (dropping the rest, as Kafka's versioned serializers ignore absent fields), turns dicts
into the version's nested classes and millisecond ints into the timedeltas kio uses.
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

from kio.serial._introspect import EntityField, EntityTupleField, PrimitiveField, classify_field


def build(schema: type[Any], **values: Any) -> Any:
    kwargs = {}
    for f in dataclasses.fields(schema):
        if f.name in values:
            kwargs[f.name] = _convert(f, values[f.name])
    return schema(**kwargs)


def _convert(f: dataclasses.Field[Any], value: Any) -> Any:
    kind = classify_field(f)
    if value is None:
        return None
    if isinstance(kind, EntityTupleField):
        return tuple(build(kind.type_, **item) if isinstance(item, dict) else item for item in value)
    if isinstance(kind, EntityField):
        return build(kind.type_, **value) if isinstance(value, dict) else value
    if isinstance(kind, PrimitiveField) and isinstance(value, int) and issubclass(kind.type_, datetime.timedelta):
        return datetime.timedelta(milliseconds=value)
    return value


def values(entity: Any) -> dict[str, Any]:
    """The inverse of `build`: a kio object's fields as plain values (nested objects as dicts, timedeltas as
    milliseconds), ready to `build` the same message at another version."""
    out = {}
    for f in dataclasses.fields(entity):
        value = getattr(entity, f.name)
        if isinstance(value, tuple) and value and dataclasses.is_dataclass(value[0]):
            value = [values(item) for item in value]
        elif dataclasses.is_dataclass(value):
            value = values(value)
        elif isinstance(value, datetime.timedelta):
            value = value // datetime.timedelta(milliseconds=1)
        out[f.name] = value
    return out
