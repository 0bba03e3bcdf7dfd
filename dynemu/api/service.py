"""The emulated DynamoDB service, whatever serves its HTTP: the namespaces, the API
dispatcher, the request metrics, and the background task of TTL sweeps and stream retention.

Built once per process that serves, without aiohttp: the HTTP listener (``http.py``) answers
from it directly, and the aiohttp application (``admin_app.create_app``) is built over the
same object when a request needs it (admin API, dashboard).
"""

from __future__ import annotations

import asyncio
from typing import Any

from dynemu.api import sigv4
from dynemu.api.metrics import RequestMetrics
from dynemu.api.operations import registry
from dynemu.api.protocol import ApiDispatcher
from dynemu.config import Settings
from dynemu.engine.capacity.throughput import CapacityConfig
from dynemu.engine.clock import make_clock
from dynemu.engine.consistency import ConsistencyConfig
from dynemu.engine.lifecycle import Lifecycle
from dynemu.engine.limits import AccountLimits
from dynemu.engine.namespaces import Namespaces


def make_namespaces(settings: Settings, *, leveldb_write_buffer: int | None = None) -> Namespaces:
    """The namespaces of ``settings``; ``leveldb_write_buffer``: the size of each LevelDB store's
    memory table (None: LevelDB's 4 MB; ``dynemu import`` gives its bulk load a larger one)."""
    return Namespaces(
        data_dir=None if settings.in_memory else settings.data_dir,
        clock=make_clock(settings.clock, settings.time_scale, settings.clock_start),
        capacity=CapacityConfig(
            model=settings.capacity_model,
            throttling=settings.throttling,
            partition_size=settings.partition_size,
        ),
        consistency=ConsistencyConfig.from_settings(settings),
        shared_db=settings.shared_db,
        isolate_access_keys=settings.isolate_access_keys,
        max_open=settings.max_open_namespaces,
        store=settings.store,
        item_collection_limit=settings.item_collection_limit,
        leveldb_open_files=settings.leveldb_open_files,
        leveldb_write_buffer=leveldb_write_buffer,
        replication_lag_ms=settings.replication_lag_ms,
        mrsc_conflict_window_ms=settings.mrsc_conflict_window_ms,
        account_limits=AccountLimits(
            max_tables=settings.max_tables, max_table_operations=settings.max_table_operations,
            max_backups=settings.max_backups, decreases_per_day=settings.max_throughput_decreases,
            account_max_read=settings.account_max_read, account_max_write=settings.account_max_write,
            ttl_change_seconds=settings.ttl_change_seconds,
            control_plane_throttling=settings.control_plane_throttling,
            transient_delays=settings.transient_delays,
        ),
    )


class Service:
    """One emulated service's state. ``await start()`` begins the background maintenance; ``await
    close()`` stops it and closes every namespace (the stores are flushed)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.namespaces = make_namespaces(settings)
        if settings.init:  # tables before the first request (dynemu/seeding.py)
            from dynemu.config import SettingsError
            from dynemu.seeding import SeedError, init_tables

            try:
                init_tables(self.namespaces, settings, settings.init)
            except SeedError as e:
                self.namespaces.close()
                raise SettingsError(f"--init: {e}") from None
        self.metrics = RequestMetrics()
        try:  # a refused setting (credentials, --log-requests' file) leaves no store open
            credentials = sigv4.credentials_for(settings.credentials_file) if settings.verify_signatures else None
            self.dispatcher = ApiDispatcher(settings, self.namespaces, registry.handlers(), self.metrics, credentials)
        except BaseException:
            self.namespaces.close()
            raise
        # TTL sweeps and stream retention (engine/lifecycle.py): on every advance of a
        # virtual clock, else every --ttl-interval seconds of clock time.
        self.lifecycle = Lifecycle(self.namespaces, settings.ttl_interval)
        self._state: Any = None  # engine.state.StateControl, made at the first use (``state``)

    @property
    def state(self) -> Any:
        """Reset, snapshots and restores (engine/state.py), made at the first use."""
        control = self._state
        if control is None:
            from dynemu.engine.state import StateControl

            settings = self.settings

            def reinit() -> None:  # the tables of --init are there again after a reset
                if settings.init:
                    from dynemu.seeding import init_tables

                    init_tables(self.namespaces, settings, settings.init)

            control = self._state = StateControl(self.namespaces, reinit)
        return control

    async def start(self) -> None:
        self.lifecycle.start(asyncio.get_running_loop())
        self.namespaces.replication.start(asyncio.get_running_loop())  # a reloaded backlog resumes
        self.namespaces.resume_autoscaling()  # and auto scaling, where targets exist

    async def close(self) -> None:
        try:
            self.lifecycle.stop()
            self.namespaces.replication.stop()
        finally:  # the stores are closed whatever stopping the sweeps did
            self.namespaces.close()
            if self.dispatcher.request_log is not None:
                self.dispatcher.request_log.close()

    def __getitem__(self, key: Any) -> Any:
        """``server.app[NAMESPACES]`` / ``[DISPATCHER]``, as on the aiohttp application (the
        keys are aiohttp AppKeys named ``...namespaces`` and ``...dispatcher``)."""
        name = str(getattr(key, "_name", key)).rpartition(".")[2]
        if name == "namespaces":
            return self.namespaces
        if name == "dispatcher":
            return self.dispatcher
        raise KeyError(key)
