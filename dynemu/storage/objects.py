"""Where exports are written and imports are read: "S3" as an object store with two
implementations (docs/import-export.md).

- ``LocalObjects``: a directory; bucket ``b`` is the folder ``DIR/b`` and the key ``p/k`` the
  file ``DIR/b/p/k`` (the embedded default, ``--s3-dir``);
- ``S3Objects``: any S3-compatible endpoint through boto3's S3 client (``--s3-endpoint``).

Objects are streamed in both directions: ``open`` gives a binary file object read in chunks,
``writer`` a binary file object whose content becomes the object when it is closed (a local
file is written beside its final name and renamed: a reader never sees half an object).
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from typing import IO, Any, Protocol


class ObjectStoreError(Exception):
    """A bucket or object that cannot be read or written; the message says which and why."""


class Objects(Protocol):
    def open(self, bucket: str, key: str) -> IO[bytes]: ...

    def writer(self, bucket: str, key: str) -> IO[bytes]: ...

    def put(self, bucket: str, key: str, data: bytes) -> None: ...

    def list(self, bucket: str, prefix: str) -> Iterator[str]: ...

    def exists(self, bucket: str, key: str) -> bool: ...

    def bucket_exists(self, bucket: str) -> bool: ...


def _safe(part: str) -> str:
    """A bucket or key may not climb out of the directory."""
    if part.startswith("/") or ".." in part.split("/"):
        raise ObjectStoreError(f"invalid bucket or key: {part!r}")
    return part


class _AtomicFile:
    """A file written as ``<name>.part`` and renamed over ``<name>`` when closed."""

    def __init__(self, path: str) -> None:
        self.path = path
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        self.file = open(path + ".part", "wb")  # noqa: SIM115 - closed by close()

    def write(self, data: bytes) -> int:
        return self.file.write(data)

    def flush(self) -> None:
        self.file.flush()

    def close(self) -> None:
        if not self.file.closed:
            self.file.close()
            os.replace(self.path + ".part", self.path)

    def abort(self) -> None:
        self.file.close()
        try:
            os.remove(self.path + ".part")
        except FileNotFoundError:
            pass

    def __enter__(self) -> _AtomicFile:
        return self

    def __exit__(self, kind: Any, *_: Any) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()


class LocalObjects:
    """Buckets as folders of ``root``; a bucket exists when its folder does, and a write to a
    missing bucket creates it (a local directory has no bucket to create first)."""

    def __init__(self, root: str) -> None:
        self.root = root

    def path(self, bucket: str, key: str = "") -> str:
        return os.path.join(self.root, _safe(bucket), *[p for p in _safe(key).split("/") if p])

    def open(self, bucket: str, key: str) -> IO[bytes]:
        try:
            return open(self.path(bucket, key), "rb")
        except OSError as e:
            raise ObjectStoreError(f"s3://{bucket}/{key}: {e.strerror}") from None

    def writer(self, bucket: str, key: str) -> Any:
        try:
            return _AtomicFile(self.path(bucket, key))
        except OSError as e:
            raise ObjectStoreError(f"s3://{bucket}/{key}: {e.strerror}") from None

    def put(self, bucket: str, key: str, data: bytes) -> None:
        with self.writer(bucket, key) as f:
            f.write(data)

    def list(self, bucket: str, prefix: str) -> Iterator[str]:
        """Keys under ``prefix`` (a key prefix, not only a folder), in key order."""
        base = self.path(bucket)
        folder, _, _ = prefix.rpartition("/")
        start = os.path.join(base, *[p for p in folder.split("/") if p])
        found = []
        for dirpath, _dirs, files in os.walk(start):
            for name in files:
                if name.endswith(".part"):
                    continue
                key = os.path.relpath(os.path.join(dirpath, name), base).replace(os.sep, "/")
                if key.startswith(prefix):
                    found.append(key)
        yield from sorted(found)

    def exists(self, bucket: str, key: str) -> bool:
        return os.path.isfile(self.path(bucket, key))

    def bucket_exists(self, bucket: str) -> bool:
        return os.path.isdir(self.path(bucket))


class _S3Writer:
    """Spooled to a temporary file, uploaded on close (boto3 streams it in parts)."""

    def __init__(self, client: Any, bucket: str, key: str) -> None:
        import tempfile

        self.client, self.bucket, self.key = client, bucket, key
        self.file = tempfile.TemporaryFile()

    def write(self, data: bytes) -> int:
        return self.file.write(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        if self.file.closed:
            return
        self.file.seek(0)
        try:
            self.client.upload_fileobj(self.file, self.bucket, self.key)
        except Exception as e:  # noqa: BLE001 - botocore's errors, reported with the key
            raise ObjectStoreError(f"s3://{self.bucket}/{self.key}: {e}") from None
        finally:
            self.file.close()

    def __enter__(self) -> _S3Writer:
        return self

    def __exit__(self, kind: Any, *_: Any) -> None:
        if kind is None:
            self.close()
        else:
            self.file.close()


class _Body(io.RawIOBase):
    """botocore's streaming body as a raw stream, so that it can be buffered and read in lines."""

    def __init__(self, body: Any) -> None:
        self.body = body

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.body.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self.body.close()
        super().close()


class S3Objects:
    """An S3-compatible endpoint (MinIO, LocalStack, moto's server) through boto3's client."""

    def __init__(self, endpoint: str, region: str = "us-east-1") -> None:
        import boto3  # only when an export or import reaches an S3 endpoint

        session = boto3.Session(region_name=region)
        # boto3's own credential chain (environment, profile); a server that checks none
        # (moto, LocalStack by default) takes these placeholders
        keys = {} if session.get_credentials() is not None else {
            "aws_access_key_id": "dynemu", "aws_secret_access_key": "dynemu"}
        self.client = session.client("s3", endpoint_url=endpoint, **keys)

    def open(self, bucket: str, key: str) -> IO[bytes]:
        try:
            body = self.client.get_object(Bucket=bucket, Key=key)["Body"]
        except Exception as e:  # noqa: BLE001
            raise ObjectStoreError(f"s3://{bucket}/{key}: {e}") from None
        return io.BufferedReader(_Body(body), 1 << 20)

    def writer(self, bucket: str, key: str) -> Any:
        return _S3Writer(self.client, bucket, key)

    def put(self, bucket: str, key: str, data: bytes) -> None:
        try:
            self.client.put_object(Bucket=bucket, Key=key, Body=data)
        except Exception as e:  # noqa: BLE001
            raise ObjectStoreError(f"s3://{bucket}/{key}: {e}") from None

    def list(self, bucket: str, prefix: str) -> Iterator[str]:
        try:
            for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
                for o in page.get("Contents", []):
                    yield o["Key"]
        except Exception as e:  # noqa: BLE001
            raise ObjectStoreError(f"s3://{bucket}/{prefix}: {e}") from None

    def exists(self, bucket: str, key: str) -> bool:
        try:
            self.client.head_object(Bucket=bucket, Key=key)
            return True
        except Exception:  # noqa: BLE001
            return False

    def bucket_exists(self, bucket: str) -> bool:
        try:
            self.client.head_bucket(Bucket=bucket)
            return True
        except Exception:  # noqa: BLE001
            return False
