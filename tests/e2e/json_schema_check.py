#!/usr/bin/env python3
"""json_schema_check.py SCHEMA FILE: check a JSON document against the
subset of JSON Schema that schemas/*.schema.json use ($ref into $defs,
type, required, properties, additionalProperties, items, minItems,
maxItems, minimum, maximum), without a package. Exit 1 naming the first
place that does not match."""
import json
import sys

TYPES = {"object": dict, "array": list, "string": str, "boolean": bool, "null": type(None)}


def type_ok(v, t):
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    return isinstance(v, TYPES[t])


def check(v, s, root, where):
    if "$ref" in s:
        s = {**root["$defs"][s["$ref"].split("/")[-1]], **{k: x for k, x in s.items() if k != "$ref"}}
    if "type" in s:
        ts = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(type_ok(v, t) for t in ts):
            raise ValueError(f"{where}: {v!r:.60} is not {s['type']}")
    if isinstance(v, dict):
        for k in s.get("required", []):
            if k not in v:
                raise ValueError(f"{where}: missing '{k}'")
        for k, x in v.items():
            if k in s.get("properties", {}):
                check(x, s["properties"][k], root, f"{where}.{k}")
            elif isinstance(s.get("additionalProperties"), dict):
                check(x, s["additionalProperties"], root, f"{where}.{k}")
            elif s.get("additionalProperties") is False:
                raise ValueError(f"{where}: unexpected '{k}'")
    if isinstance(v, list):
        if len(v) < s.get("minItems", 0) or len(v) > s.get("maxItems", len(v)):
            raise ValueError(f"{where}: {len(v)} items")
        for i, x in enumerate(v):
            if "items" in s:
                check(x, s["items"], root, f"{where}[{i}]")
    if type_ok(v, "number") and not (s.get("minimum", v) <= v <= s.get("maximum", v)):
        raise ValueError(f"{where}: {v} out of range")


schema = json.load(open(sys.argv[1]))
try:
    check(json.load(open(sys.argv[2])), schema, schema, "$")
except ValueError as e:
    sys.exit(f"{sys.argv[2]}: does not match {sys.argv[1]}: {e}")
