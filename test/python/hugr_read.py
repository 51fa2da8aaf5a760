"""Reads Hugr /ipc answers with Hugr's own Python client (hugr-client on PyPI) and prints what it read as JSON.

Used by test/data-table.test.ts to check that the test server's /ipc answers are what the real client reads.
stdin: {"url": ".../ipc", "secret": "...", "queries": ["{ ... }", ...]}
stdout: one entry per query: {"parts": [{"path", "kind": "table"|"object", "columns", "rows" | "value"}],
"errors": [...]} or {"raised": "..."} when the client refuses the answer (an answer with errors only).
Cells: geometry decoded by the client's own decoder and written as GeoJSON; dates ISO; timestamps RFC 3339 with
trailing fraction zeros trimmed and Z for UTC; bytes base64.
"""
import base64
import datetime
import decimal
import json
import sys

try:
    from hugr.client import HugrClient, HugrIPCTable, _decode_geom
    from shapely.geometry import mapping
except ImportError as err:  # the test turns this into its failure message
    print(f"hugr-client is not installed ({err}): python3 -m pip install hugr-client", file=sys.stderr)
    sys.exit(3)


def timestamp(value: datetime.datetime) -> str:
    if value.tzinfo is not None:
        value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    text = value.strftime("%Y-%m-%dT%H:%M:%S")
    if value.microsecond:
        text += ("." + f"{value.microsecond:06d}").rstrip("0")
    return text + "Z"


def plain(value):
    if isinstance(value, datetime.datetime):
        return timestamp(value)
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def decode_at(value, path, encoding):
    """Decodes the geometry at a dotted path inside a cell (a list adds no segment)."""
    if value is None:
        return None
    if isinstance(value, list):
        return [decode_at(v, path, encoding) for v in value]
    if not path:
        geom = _decode_geom(value, encoding)
        return None if geom is None else json.loads(json.dumps(mapping(geom)))
    head, rest = path[0], path[1:]
    if isinstance(value, dict) and head in value:
        value = dict(value)
        value[head] = decode_at(value[head], rest, encoding)
    return value


def read_table(part: HugrIPCTable):
    table = part.to_arrow()
    columns = table.column_names
    rows = table.to_pylist()
    for field, info in (part._geom_fields or {}).items():
        encoding = str(info.get("format", "wkb")).lower()
        if encoding == "h3cell":
            continue
        head, *rest = field.split(".")
        for row in rows:
            if head in row:
                row[head] = decode_at(row[head], rest, encoding)
    return {"kind": "table", "columns": columns, "rows": [[plain(r[c]) for c in columns] for r in rows]}


def main():
    request = json.load(sys.stdin)
    client = HugrClient(url=request["url"], api_key=request["secret"], api_key_header="x-hugr-secret-key", timezone="UTC")
    out = []
    for query in request["queries"]:
        try:
            response = client.query(query)
        except ValueError as err:
            out.append({"raised": str(err)})
            continue
        parts = []
        for path, part in response.parts.items():
            if isinstance(part, HugrIPCTable):
                parts.append({"path": path, **read_table(part)})
            else:
                parts.append({"path": path, "kind": "object", "value": plain(part.dict())})
        out.append({"parts": parts, "errors": response.errors})
    json.dump(out, sys.stdout)


main()
