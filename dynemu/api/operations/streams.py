"""The DynamoDB Streams API (X-Amz-Target DynamoDBStreams_20120810.*): ListStreams,
DescribeStream, GetShardIterator, GetRecords. The model is ``dynemu.engine.streams``.

Shard iterators are opaque strings shaped as the service's (``<stream arn>|1|<base64>``,
API_streams_GetShardIterator example) encoding the table id, shard, next sequence number
and issue time; they expire 15 minutes of clock time after they are issued.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import struct
import zlib
from hashlib import blake2b
from typing import Any

from dynemu import errors
from dynemu.api.protocol import Context
from dynemu.engine import streams
from dynemu.engine.streams import SEQUENCE_BASE, Record, Shard, Stream, TableStreams

MAX_PAGE = 100  # ListStreams and DescribeStream return at most 100 entries per page
_ITERATOR = struct.Struct(">IQQdI")  # table id, shard number, next sequence, issued at, crc
SERVICE_IDENTITY = {"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"}


def _seq_text(seq: int) -> str:
    return str(SEQUENCE_BASE + seq)


# A stream's ARN: arn:<partition>:dynamodb:<region>:<account>:table/<name>/stream/<label>.
_STREAM_ARN = re.compile(r"arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:\d{12}:table/[a-zA-Z0-9_.-]{3,255}/stream/\S+")


def _lookup(ctx: Context, arn: str) -> tuple[TableStreams, Stream]:
    """The stream an ARN names: a malformed ARN is a ValidationException, a well-formed one
    naming no stream ResourceNotFoundException (DescribeStream, GetShardIterator and
    ListStreams' ExclusiveStartStreamArn alike)."""
    found = ctx.db.streams.find(arn)
    if found is None:
        if not _STREAM_ARN.fullmatch(arn):
            raise errors.validation(errors.MSG_INVALID_STREAM_ARN)
        raise streams.stream_not_found(arn)
    return found


# --- ListStreams -----------------------------------------------------------------------------------


def _limit(body: dict[str, Any]) -> int:
    """``Limit``: "The upper limit is 100" (API_streams_ListStreams, _DescribeStream), checked
    as the service checks GetRecords' 1000."""
    limit = body.get("Limit") or MAX_PAGE
    if limit > MAX_PAGE:
        raise errors.validation(errors.msg_validation_errors([errors.msg_constraint(limit, "limit", errors.msg_at_most(MAX_PAGE))]))
    return int(limit)


def list_streams(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    limit = _limit(body)
    name = body.get("TableName")
    if name is not None and name.startswith("arn:"):
        name = name.rpartition("table/")[2]
    entries = ctx.db.streams.streams(name)
    if name is not None and not entries and ctx.db.lookup(name) is None:
        raise errors.table_not_found(name)
    start = body.get("ExclusiveStartStreamArn")
    if start is not None:
        _lookup(ctx, start)  # a stream that does not exist: ResourceNotFoundException
        table_part, _, label = start.partition("/stream/")
        after = (table_part.rpartition("table/")[2], label, start)
        entries = [e for e in entries if (e[0].table_name, e[1].label, e[1].arn) > after]
    page = entries[:limit]
    out: dict[str, Any] = {
        "Streams": [{"StreamArn": s.arn, "TableName": ts.table_name, "StreamLabel": s.label} for ts, s in page]
    }
    if len(entries) > limit:
        out["LastEvaluatedStreamArn"] = page[-1][1].arn
    return out


# --- DescribeStream --------------------------------------------------------------------------------


def _shard(s: Shard) -> dict[str, Any]:
    rng = {"StartingSequenceNumber": _seq_text(s.first_seq)}
    if s.last_seq is not None:
        rng["EndingSequenceNumber"] = _seq_text(s.last_seq)
    out: dict[str, Any] = {"ShardId": s.shard_id, "SequenceNumberRange": rng}
    if s.parent_id is not None:
        out["ParentShardId"] = s.parent_id
    return out


def _shard_filter(flt: dict[str, Any] | None) -> str | None:
    """ShardFilter: ``Type`` (only CHILD_SHARDS) and the parent ``ShardId`` are both needed.
    The service's wording is undocumented; Coral's "must not be null" form (issue-12 report)."""
    if flt is None:
        return None
    for member, path in (("Type", "shardFilter.type"), ("ShardId", "shardFilter.shardId")):
        if flt.get(member) is None:
            raise errors.validation(errors.msg_validation_errors([errors.msg_constraint(None, path, errors.MSG_NOT_NULL)]))
    return str(flt["ShardId"])


def describe_stream(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    limit = _limit(body)
    parent = _shard_filter(body.get("ShardFilter"))
    ts, stream = _lookup(ctx, body["StreamArn"])
    ts.sync(ctx.db.now())
    shards = sorted(stream.shards, key=lambda s: s.shard_id)  # creation order: ids carry it
    if parent is not None:
        shards = [s for s in shards if s.parent_id == parent]
    start = body.get("ExclusiveStartShardId")
    if start is not None:
        shards = [s for s in shards if s.shard_id > start]
    page = shards[:limit]
    desc: dict[str, Any] = {
        "StreamArn": stream.arn,
        "StreamLabel": stream.label,
        "StreamStatus": stream.status,
        "StreamViewType": stream.view_type,
        "CreationRequestDateTime": stream.created,
        "TableName": ts.table_name,
        "KeySchema": [{"AttributeName": n, "KeyType": k} for n, k in ts.key_schema],
        "Shards": [_shard(s) for s in page],
    }
    if len(shards) > limit:
        desc["LastEvaluatedShardId"] = page[-1].shard_id
    return {"StreamDescription": desc}


# --- shard iterators -------------------------------------------------------------------------------


def encode_iterator(arn: str, table_id: int, shard: int, pos: int, issued: float) -> str:
    head = struct.pack(">IQQd", table_id, shard, pos, issued)
    crc = zlib.crc32(arn.encode() + head)
    return f"{arn}|1|{base64.b64encode(head + struct.pack('>I', crc)).decode()}"


def decode_iterator(text: str) -> tuple[str, int, int, int, float]:
    """``(stream arn, table id, shard number, next sequence, issued at)``."""
    parts = text.rsplit("|", 2)
    if len(parts) != 3 or parts[1] != "1":
        raise errors.validation(errors.MSG_INVALID_ITERATOR)
    arn = parts[0]
    try:
        raw = base64.b64decode(parts[2], validate=True)
    except (binascii.Error, ValueError):
        raise errors.validation(errors.MSG_INVALID_ITERATOR) from None
    if len(raw) != _ITERATOR.size:
        raise errors.validation(errors.MSG_INVALID_ITERATOR)
    table_id, shard, pos, issued, crc = _ITERATOR.unpack(raw)
    if zlib.crc32(arn.encode() + raw[:-4]) != crc:
        raise errors.validation(errors.MSG_INVALID_ITERATOR)
    return arn, table_id, shard, pos, issued


def _sequence(text: str) -> int:
    if not text.isdigit():
        raise errors.validation(
            errors.msg_validation_errors([errors.msg_constraint(text, "sequenceNumber", errors.msg_pattern("\\d+"))])
        )
    return max(0, int(text) - SEQUENCE_BASE)


def _timestamp(value: Any, now: float) -> float:
    """``Timestamp``: Unix epoch seconds with millisecond precision; not in the future."""
    if value is None:
        raise errors.validation(errors.MSG_TIMESTAMP_REQUIRED)
    at = float(value)
    if at > math.ceil(now * 1000) / 1000:  # compared at the API's millisecond precision
        raise errors.validation(errors.MSG_TIMESTAMP_FUTURE)
    return at


def get_shard_iterator(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    ts, stream = _lookup(ctx, body["StreamArn"])
    shard = stream.shard(body["ShardId"])
    if shard is None:
        raise errors.resource_not_found(errors.MSG_SHARD_NOT_FOUND)
    kind = body["ShardIteratorType"]
    text = body.get("SequenceNumber")
    now = ctx.db.now()
    if kind == "AT_TIMESTAMP" and text is None:
        at = _timestamp(body.get("Timestamp"), now)
        pos = ts.position_at_time(shard, at, now)
        return {"ShardIterator": encode_iterator(stream.arn, ts.table_id, shard.num, pos, now)}
    needs = kind in ("AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER")
    if needs != (text is not None):
        raise errors.validation(errors.msg_iterator_type(kind, text is not None))
    pos = ts.position(shard, kind, _sequence(text) if text is not None else None, now)
    return {"ShardIterator": encode_iterator(stream.arn, ts.table_id, shard.num, pos, now)}


# --- GetRecords --------------------------------------------------------------------------------------


def _record(ts: TableStreams, stream: Stream, rec: Record) -> dict[str, Any]:
    data: dict[str, Any] = {
        "ApproximateCreationDateTime": int(rec.created),  # "rounded down to the closest second"
        "Keys": rec.keys,
    }
    if rec.new is not None:
        data["NewImage"] = rec.new
    if rec.old is not None:
        data["OldImage"] = rec.old
    data["SequenceNumber"] = _seq_text(rec.seq)
    data["SizeBytes"] = rec.size
    data["StreamViewType"] = stream.view_type
    out: dict[str, Any] = {
        "eventID": blake2b(f"{stream.arn}#{rec.seq}".encode(), digest_size=16).hexdigest(),
        "eventName": rec.event,
        "eventVersion": "1.1",
        "eventSource": "aws:dynamodb",
        "awsRegion": ts.region,
        "dynamodb": data,
    }
    if rec.service:  # a TTL delete
        out["userIdentity"] = dict(SERVICE_IDENTITY)
    return out


def get_records(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    limit = body.get("Limit") or streams.MAX_READ_RECORDS
    if limit > streams.MAX_READ_RECORDS:
        raise errors.validation(
            errors.msg_validation_errors([errors.msg_constraint(limit, "limit", errors.msg_at_most(streams.MAX_READ_RECORDS))])
        )
    arn, table_id, num, pos, issued = decode_iterator(body["ShardIterator"])
    now = ctx.db.now()
    if now - issued > streams.ITERATOR_LIFETIME:
        raise errors.DynamoError("ExpiredIteratorException", errors.MSG_ITERATOR_EXPIRED)
    ts, stream = _lookup(ctx, arn)
    shard = stream.shard_by_num(num) if ts.table_id == table_id else None
    if shard is None:
        raise errors.resource_not_found(errors.MSG_SHARD_NOT_FOUND)
    records, nxt = ts.read(shard, pos, limit, now)
    out: dict[str, Any] = {"Records": [_record(ts, stream, r) for r in records]}
    if nxt is not None:  # absent once a closed shard is exhausted
        out["NextShardIterator"] = encode_iterator(arn, table_id, num, nxt, now)
    return out


OPERATIONS = {
    "ListStreams": list_streams,
    "DescribeStream": describe_stream,
    "GetShardIterator": get_shard_iterator,
    "GetRecords": get_records,
}
