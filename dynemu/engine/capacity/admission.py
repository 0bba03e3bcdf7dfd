"""Capacity admission on the read and write paths of one table.

Every data-plane request passes here once: ``admit`` before the work (a request is
admitted while its buckets hold a positive balance), ``charge`` with the units it
actually consumed once they are known (the token-bucket rule of ``throughput.py``).
``TableCapacity`` is also a write observer: each committed mutation updates its
partition's exact item count and size once its batch is written; a partition that outgrows
``--partition-size`` then splits in two at its hash midpoint (docs/capacity.md,
"Partitions": a full partition splits), each child getting the exact count and size of its
key range read from storage, and the changed partition map is written with the table's next
commit (or at close). Each GSI's partitions are kept the same way from the entry changes the
index maintainer derived (``m.derived["indexes"]``): exact entry counts and sizes (an
entry's size is its projection's DynamoDB size, as IndexSizeBytes counts it), and splits for
size. What the model keeps across a restart (its balances, each GSI's partition map, the
Contributor Insights settings) is one record per table (``snapshot``): a GSI's map is made
from it on the GSI's first use after a start, its partitions measured from storage then.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from dynemu.engine.capacity import snapshot
from dynemu.engine.capacity.partitions import PartitionMap
from dynemu.engine.capacity.throughput import CapacityConfig, ThrottleDecision, ThroughputState
from dynemu.engine.schema import TableSpec
from dynemu.engine.table import Mutation, stored_size
from dynemu.errors import THROTTLING, DynamoError
from dynemu.storage import keyspace
from dynemu.storage.base import Store, WriteBatch

# The smallest charge of a read or a write, used to ask "is this request admitted?" before
# its real size is known (half a unit: an eventually consistent read of up to 4 KB).
PROBE_UNITS = 0.5


def throttled(d: ThrottleDecision) -> DynamoError:
    """ProvisionedThroughputExceededException (ThrottlingException on on-demand tables) with
    ThrottlingReasons, as the service returns them (API_ThrottlingReason)."""
    # botocore's model spells the member "ThrottlingReasons" on
    # ProvisionedThroughputExceededException but "throttlingReasons" on ThrottlingException.
    member = "throttlingReasons" if d.error_type == THROTTLING else "ThrottlingReasons"
    return DynamoError(d.error_type, d.message, extra={member: d.throttling_reasons()})


def throttled_requests(capacities: Iterable[TableCapacity]) -> None:
    """A request with several items refused as a whole (a batch none of whose items was
    processed, a cancelled transaction): one ThrottledRequests on each table it refused on,
    once each. CloudWatch counts one per request "if any event within a request exceeds a
    provisioned throughput limit", and a BatchGetItem or BatchWriteItem only "if every request
    in the batch is throttled" (metrics-dimensions.html, ThrottledRequests)."""
    for cap in {id(c): c for c in capacities}.values():
        cap.state.throttled_requests += 1


def _od_caps(spec: Any) -> tuple[float | None, float | None]:
    """A table's or GSI's OnDemandThroughput maxima (None: no maximum)."""
    r, w = spec.on_demand_max_read, spec.on_demand_max_write
    return (r if r and r > 0 else None), (w if w and w > 0 else None)


def _partitions_key(table_id: int) -> bytes:
    return keyspace.meta_counter_key(f"partitions/{table_id}")


def _model_key(table_id: int) -> bytes:
    return keyspace.meta_counter_key(f"capacity-model/{table_id}")


def _map_rows(rows: list[Any]) -> list[tuple[bytes, int, int]]:
    return [(bytes.fromhex(s), size, count) for s, size, count in rows]


class TableCapacity:
    """The throughput state of one table and the glue to its read and write paths."""

    __slots__ = ("spec", "cfg", "store", "state", "index_states", "_saved_version", "_meta_key", "_batch",
                 "_staged", "_staged_gsi", "_saving", "_now", "_model", "_next_save", "requests")

    def __init__(self, spec: TableSpec, cfg: CapacityConfig, store: Store, now: float, size_bytes: int) -> None:
        self.spec = spec
        self.cfg = cfg
        self.store = store
        # GSIs have their own throughput and partitions (GSI.md, "Provisioned throughput
        # considerations"); made when first needed, reconfigured by UpdateTable.
        self.index_states: dict[str, ThroughputState] = {}
        self._meta_key = _partitions_key(spec.table_id)
        raw = store.get(self._meta_key)
        pmap = None
        if raw is not None:
            pmap = PartitionMap.from_snapshot(_map_rows(orjson.loads(raw)), partition_size=cfg.partition_size)
        on_demand = spec.billing_mode == "PAY_PER_REQUEST"
        self.state = ThroughputState(
            cfg,
            arn=spec.arn,
            now=now,
            on_demand=on_demand,
            rcu=spec.throughput.read,
            wcu=spec.throughput.write,
            max_read=spec.on_demand_max_read if spec.on_demand_max_read > 0 else None,
            max_write=spec.on_demand_max_write if spec.on_demand_max_write > 0 else None,
            pmap=pmap,
            size_bytes=size_bytes,
            warm_read=spec.warm_read,
            warm_write=spec.warm_write,
            sort_key=spec.range_key is not None,
        )
        self.state.pmap.measure = self._measure
        self.requests = self.state.requests  # CloudWatch's per-operation metrics (engine/cloudwatch/requests.py)
        if pmap is not None and sum(part.size_bytes for part in pmap.parts) != size_bytes:
            # the snapshot is saved when the map changes; sizes have moved on since
            for i, part in enumerate(pmap.parts):
                part.size_bytes, part.item_count = self._measure(*pmap.bounds(i))
        # A new table starts with its planned partitions; persist them with the next write.
        self._saved_version = -1 if pmap is None else self.state.version
        # The commit in progress: its batch, the partition changes it stages (partition,
        # size delta, item count delta; applied once the batch is written) and the map
        # version its batch saves (or -1).
        self._batch: WriteBatch | None = None
        self._staged: list[tuple[int, int, int]] = []
        # GSI entry changes of the commit in progress: (GSI state, entry key suffix, size
        # delta, entry count delta)
        self._staged_gsi: list[tuple[ThroughputState, bytes, int, int]] = []
        self._saving = -1
        self._now = 0.0
        # the model's record of the previous run (``snapshot``): the table's state now, each
        # GSI's when the GSI is first used
        raw = store.get(_model_key(spec.table_id))
        self._model: dict[str, Any] = orjson.loads(raw) if raw is not None else {}
        if "state" in self._model:
            snapshot.restore_state(self.state, self._model["state"])
        snapshot.restore_insights(self.state.contributors, self._model.get("insights"))
        self.requests.seen = self.state.throttled_requests
        self._next_save = now + snapshot.SAVE_EVERY

    # --- the request path -------------------------------------------------------------------

    def admit(
        self, suffix: bytes, now: float, *, write: bool = False, state: ThroughputState | None = None,
        whole: bool = False,
    ) -> int:  # fmt: skip
        """Admission before the work, the one check of every read and write: the partition
        of the table (or of GSI ``state``) holding ``suffix`` (``keyspace.hashed_part`` of an
        item key or of one partition key's prefix; a GSI's: ``index_hashed_part``), or a
        throttling error. ``whole``: a refusal refuses the whole request (a single-item one),
        one ThrottledRequests of this table, a GSI's refusal included (metrics-dimensions.html);
        batches and transactions count theirs once decided (``throttled_requests``)."""
        if state is None:
            state = self.state
        p = state.pmap.find(suffix)
        d = state.check(p, 0.0 if write else PROBE_UNITS, PROBE_UNITS if write else 0.0, now)
        if d is not None:
            state.record_throttle(d, now, suffix)
            if whole:
                self.state.throttled_requests += 1
            raise throttled(d)
        return p

    def charge(
        self, p: int, suffix: bytes, now: float, *, read: float = 0.0, write: float = 0.0,
        state: ThroughputState | None = None,
    ) -> None:  # fmt: skip
        """Debit what a request admitted on partition ``p`` of the table (or of GSI
        ``state``) actually consumed, then run what is due on the table's and its GSIs'
        capacity: the one charge of every read, write and search, after its ``admit``."""
        (self.state if state is None else state).debit(p, read, write, now, suffix)
        if now >= self.state._next_maint or self.index_states:
            self.maintain(now)

    def maintain(self, now: float) -> None:
        """Run what is due on the table and its GSIs (on-demand growth, the policy's own);
        at most once per clock second each."""
        if now >= self.state._next_maint:
            self.state.maintain(now)
        if self.index_states:
            for state in self.index_states.values():
                if now >= state._next_maint:
                    state.maintain(now)

    # --- global secondary indexes ---------------------------------------------------------------

    def index_state(self, ix: Any, now: float) -> ThroughputState:
        """The throughput state of GSI ``ix`` (an engine.indexes.Index)."""
        state = self.index_states.get(ix.name)
        if state is None:
            state = self.index_states[ix.name] = self._new_index_state(ix, now)
        return state

    def _new_index_state(self, ix: Any, now: float) -> ThroughputState:
        """A GSI's state on its first use since start: its partition map and balances from
        the previous run's record when there is one, its partitions' sizes measured from
        storage."""
        spec = ix.spec
        on_demand = self.spec.billing_mode == "PAY_PER_REQUEST"
        saved = self._model.get("indexes", {}).get(ix.name)
        pmap = None
        if saved is not None:
            pmap = PartitionMap.from_snapshot(_map_rows(saved["map"]), partition_size=self.cfg.partition_size)
        state = ThroughputState(
            self.cfg,
            arn=f"{self.spec.arn}/index/{ix.name}",
            now=now,
            index_name=ix.name,
            on_demand=on_demand,
            rcu=0 if on_demand else spec.throughput.read,
            wcu=0 if on_demand else spec.throughput.write,
            max_read=_od_caps(spec)[0],
            max_write=_od_caps(spec)[1],
            size_bytes=ix.size_bytes,
            pmap=pmap,
        )
        prefix: bytes = ix.prefix
        pmap = state.pmap
        pmap.measure = lambda lo, hi: self._measure_range(prefix, lo, hi)
        if ix.item_count or ix.size_bytes:  # the entries it holds already, partition by partition
            for i, part in enumerate(pmap.parts):
                part.size_bytes, part.item_count = pmap.measure(*pmap.bounds(i))
        if saved is not None:
            snapshot.restore_state(state, saved["state"])
            snapshot.restore_insights(state.contributors, saved.get("insights"))
        return state

    def index_entries_written(self, name: str, changes: list[tuple[bytes, int, int]]) -> None:
        """Entries written to GSI ``name`` outside the write path (a backfill step), once
        written: ``(entry key suffix, size delta, count delta)``; nothing to do before the
        GSI's state exists (it measures its partitions when made)."""
        state = self.index_states.get(name)
        if state is None:
            return
        full = set()
        for suffix, size, count in changes:
            p = state.pmap.find(suffix)
            if state.note_write(p, size, count):
                full.add(p)
        for p in sorted(full, reverse=True):
            self._split_for_size(state, p, max(self._now, state.created))  # the latest time seen

    def index_insights(self, name: str) -> Any:
        """The Contributor Insights setting of GSI ``name``: its state's, or for a GSI not yet
        used since start the one the previous run kept (None: never set)."""
        state = self.index_states.get(name)
        if state is not None:
            return state.contributors.insights
        rec = self._model.get("indexes", {}).get(name, {}).get("insights")
        if not rec:
            return None
        from dynemu.engine.capacity.contributors import Contributors

        holder = Contributors(0.0)
        snapshot.restore_insights(holder, rec)
        return holder.insights

    def sync_indexes(self, indexes: list[Any], now: float) -> None:
        """Follow the table's GSIs after UpdateTable: new ones, deleted ones, new throughput."""
        live = {ix.name: ix for ix in indexes if ix.is_global}
        for name in list(self.index_states):
            if name not in live:
                del self.index_states[name]
        for name in list(self._model.get("indexes", ())):
            if name not in live:
                del self._model["indexes"][name]
        for name, ix in live.items():
            state = self.index_states.get(name)
            if state is None:
                continue  # made on first use
            if self.spec.billing_mode == "PAY_PER_REQUEST":
                state.set_on_demand(now, *_od_caps(ix.spec))  # the GSI's own OnDemandThroughput
            elif state.prov != [float(ix.spec.throughput.read), float(ix.spec.throughput.write)] or state.on_demand:
                state.set_provisioned(ix.spec.throughput.read, ix.spec.throughput.write, now)

    # --- control plane ------------------------------------------------------------------------

    def reconfigure(self, now: float) -> None:
        """Follow the spec after UpdateTable (billing mode, throughput, caps, warm throughput)."""
        spec = self.spec
        if spec.billing_mode == "PAY_PER_REQUEST":
            self.state.set_on_demand(
                now,
                spec.on_demand_max_read if spec.on_demand_max_read > 0 else None,
                spec.on_demand_max_write if spec.on_demand_max_write > 0 else None,
            )
        else:
            self.state.set_provisioned(spec.throughput.read, spec.throughput.write, now)
        if spec.warm_read or spec.warm_write:
            self.state.set_warm(spec.warm_read, spec.warm_write, now)

    def persist(self, batch: WriteBatch) -> None:
        """Save the partition map with its current exact sizes (at a clean close, so that the
        next start finds them matching the table's counters and measures nothing), and the
        model's record (``snapshot``)."""
        self._put_map(batch)
        self._put_model(batch)

    def save_model(self) -> None:
        """Write the model's record now (a Contributor Insights setting changed)."""
        batch = WriteBatch()
        self._put_model(batch)
        self.store.write(batch)

    def _put_model(self, batch: WriteBatch) -> None:
        """The model's record: the table's state and settings, and each GSI's -- those used
        since start as they are now, the others as the previous run left them."""
        indexes = dict(self._model.get("indexes", {}))
        for name, st in self.index_states.items():
            indexes[name] = {
                "map": [(s.hex(), size, count) for s, size, count in st.pmap.snapshot()],
                "state": snapshot.state_record(st),
                "insights": snapshot.insights_record(st.contributors.insights),
            }
        self._model = {
            "state": snapshot.state_record(self.state),
            "insights": snapshot.insights_record(self.state.contributors.insights),
            "indexes": indexes,
        }
        batch.put(_model_key(self.spec.table_id), orjson.dumps(self._model))

    def persist_if_changed(self, batch: WriteBatch) -> int:
        """Put the partition map in ``batch`` when it changed since it was last written;
        returns the version put (-1: none) for ``saved`` once the batch is written."""
        if self.state.version == self._saved_version:
            return -1
        self._put_map(batch)
        return self.state.version

    def saved(self, version: int) -> None:
        """A batch holding the map of ``version`` (``persist_if_changed``) was written."""
        if version >= 0:
            self._saved_version = version

    def _put_map(self, batch: WriteBatch) -> None:
        rows = [(s.hex(), size, count) for s, size, count in self.state.pmap.snapshot()]
        batch.put(self._meta_key, orjson.dumps(rows))

    def drop(self, batch: WriteBatch) -> None:
        batch.delete(self._meta_key)
        batch.delete(_model_key(self.spec.table_id))

    # --- write observer: partition sizes and splits ------------------------------------------------

    def on_plan(self, m: Mutation) -> None:
        return None

    def on_commit(self, m: Mutation, batch: WriteBatch, now: float) -> None:
        state = self.state
        if self._batch is not batch:  # the batch's first mutation
            self._batch, self._now = batch, now
            if self._staged:
                self._staged.clear()  # a refused batch's
            if self._staged_gsi:
                self._staged_gsi.clear()
            if state.version != self._saved_version:  # the map changed since it was written
                self._saving = state.version
                self._put_map(batch)
            else:
                self._saving = -1
            if now >= self._next_save:  # the model's record, at most once a clock second
                self._next_save = now + snapshot.SAVE_EVERY
                self._put_model(batch)
        self._staged.append(
            (state.pmap.find(keyspace.hashed_part(m.key)), m.new_size - m.old_size, (m.new is not None) - m.existed)
        )
        if m.derived is not None and self.index_states:
            self._stage_index_writes(m.derived.get("indexes"))

    def _stage_index_writes(self, writes: list[Any] | None) -> None:
        """Stage the GSI entry changes of a mutation (engine.indexes.IndexWrite): a moved
        entry leaves one partition and enters another."""
        for w in writes or ():
            state = self.index_states.get(w.name) if w.is_global else None
            if state is None:
                continue
            if w.old_key is not None and w.old_key == w.new_key:
                self._staged_gsi.append((state, keyspace.index_hashed_part(w.new_key), w.new_size - w.old_size, 0))
                continue
            if w.old_key is not None:
                self._staged_gsi.append((state, keyspace.index_hashed_part(w.old_key), -w.old_size, -1))
            if w.new_key is not None:
                self._staged_gsi.append((state, keyspace.index_hashed_part(w.new_key), w.new_size, 1))

    def after_commit(self, batch: WriteBatch) -> None:
        """``batch`` was written: the partitions take its sizes, and those that outgrew
        the partition size split (the map is written with the table's next commit, or at
        close; a start that finds it behind the table's size measures its partitions)."""
        if self._batch is not batch:
            return
        self._batch = None
        if self._saving >= 0:
            self._saved_version = self._saving
        pmap = self.state.pmap
        full: list[int] | None = None
        for p, size, count in self._staged:
            if pmap.note_write(p, size, count):
                full = [p] if full is None else full + [p]
        self._staged.clear()
        if full is not None:
            for p in sorted(set(full), reverse=True):  # splits only shift the partitions above
                self._split_for_size(self.state, p, self._now)
        if self._staged_gsi:
            self._apply_index_writes()

    def _apply_index_writes(self) -> None:
        """The staged GSI entry changes, once their batch is written; full GSI partitions split."""
        full: dict[int, tuple[ThroughputState, set[int]]] = {}
        for state, suffix, size, count in self._staged_gsi:
            if self.index_states.get(state.index_name or "") is not state:
                continue  # the GSI was deleted meanwhile
            p = state.pmap.find(suffix)
            if state.note_write(p, size, count):
                full.setdefault(id(state), (state, set()))[1].add(p)
        self._staged_gsi.clear()
        for state, parts in full.values():
            for p in sorted(parts, reverse=True):
                self._split_for_size(state, p, self._now)

    def _split_for_size(self, state: ThroughputState, p: int, now: float) -> None:
        """Split partition ``p`` of ``state`` (the table's or a GSI's) at hash midpoints
        until every part fits the partition size (or holds a single hash value); each split
        measures its upper half (``PartitionMap.measure``)."""
        pmap = state.pmap
        assert pmap.measure is not None
        pending = [p]
        while pending:
            i = pending.pop()  # splits only shift the partitions above ``i``
            part = pmap.parts[i]
            at = pmap.hash_midpoint(i) if part.size_bytes > pmap.partition_size else None
            if at is None:
                continue
            size, count = pmap.measure(at, pmap.bounds(i)[1])
            new = state.split(i, at, now, part.size_bytes - size, part.item_count - count)
            pending += [i, new]

    def _measure(self, lo: bytes, hi: bytes | None) -> tuple[int, int]:
        """Exact (size, item count) of the stored items with key suffixes in ``[lo, hi)``."""
        return self._measure_range(keyspace.items_prefix(self.spec.table_id), lo, hi)

    def _measure_range(self, prefix: bytes, lo: bytes, hi: bytes | None) -> tuple[int, int]:
        """Exact (size, count) of the stored values under ``prefix`` (the table's items or a
        GSI's entries, both stored with their DynamoDB size) with suffixes in ``[lo, hi)``."""
        start = prefix + lo
        stop = prefix + hi if hi is not None else keyspace.prefix_end(prefix)
        size = count = 0
        for _, v in self.store.iterate(start, stop):  # streamed: memory does not grow with the range
            size += stored_size(v)
            count += 1
        return size, count

    # --- admin views -------------------------------------------------------------------------

    def describe_key(self, suffix: bytes) -> Any:
        """The partition key value a storage key suffix belongs to (for hot-key listings)."""
        try:
            return keyspace.partition_value_of(suffix, self.spec.hash_key.type)
        except Exception:  # a truncated sample; show the raw bytes
            return suffix.hex()
