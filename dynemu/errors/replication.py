"""Global tables: replicas across regions, replication, multi-Region strong consistency.

Where a text was observed from the service, its source is given; the others are marked
UNSURE (no capture found; the wording follows the service's style).
"""

from __future__ import annotations

from dynemu.errors.base import SERVICE_NS, DynamoError, invalid_parameter, validation

# Observed answers of the service are cited by source; "ack-api-quirks" is the aws-controllers-k8s
# DynamoDB probe catalogue (table-replicas.md, table-global-tables.md, 2026 captures).

# ReplicaUpdates Create or Delete naming the table's own region (observed: ack-api-quirks
# DDB-TABLE-203); an Update of it (observed: aws/aws-cli#4906, the earlier wording).
MSG_LOCAL_REGION_REPLICA = (
    "Cannot add or delete the local region through ReplicaUpdates. "
    "Use CreateTable, DeleteTable, or UpdateTable as required."
)
MSG_LOCAL_REGION_REPLICA_UPDATE = (
    "Cannot add, delete, or update the local region through ReplicaUpdates. "
    "Use CreateTable, DeleteTable, or UpdateTable as required."
)
# StreamEnabled false on a replica (observed: hashicorp/terraform-provider-aws#20019).
MSG_STREAM_DISABLE_REPLICA = "Disabling Stream is not allowed for a Global Table replica."
# CreateGlobalTable and the other 2017.11.29 operations where that version is not offered
# (observed: crossplane-contrib/provider-aws#2308).
MSG_LEGACY_VERSION = (
    "DynamoDB global tables version 2017.11.29 is not supported. We recommend using DynamoDB "
    "global tables version 2019.11.21, instead of version 2017.11.29 (Legacy)."
)
# ReplicatedWriteConflictException: the API reference's description of the error.
MSG_REPLICATED_WRITE_CONFLICT = (
    "The request was rejected because one or more items in the request are being modified by a request in another Region."
)
# ReplicaUpdates with any other change in the same UpdateTable (observed: ack-api-quirks DDB-TABLE-257).
MSG_REPLICA_UPDATES_ALONE = "Requests that modify replicas or witnesses must not also modify other fields"
# Two Creates or Deletes in one UpdateTable of an MREC table (observed: ack-api-quirks DDB-TABLE-258).
MSG_ONE_REPLICA_ACTION = "Update table operation with more than one create or delete replica actions not allowed"
# MRSC, observed (ack-api-quirks DDB-TABLE-257, -260, -202): the group is created whole in one
# UpdateTable (three Regions: two replica Creates, or one and a witness) and is frozen afterwards.
MSG_MRSC_REGION_COUNT = "Unsupported replica count for global tables with MultiRegionConsistency set to STRONG."
MSG_WITNESS_WITHOUT_STRONG = (
    "MultiRegionConsistency must be set as STRONG when GlobalTableWitnessUpdates parameter is present."
)
MSG_WITNESS_IN_REPLICA_REGION = "Cannot target multiple regions with the same action"
MSG_WITNESS_IN_LOCAL_REGION = (
    "Cannot add a witness in the same region as an existing replica when creating a global table with "
    "MultiRegionConsistency set to STRONG."
)
MSG_CONSISTENCY_FIXED = "MultiRegionConsistency parameter is unsupported on existing global table"
MSG_MRSC_ADD_REPLICA = "Cannot add replicas to a global table with strong MultiRegionConsistency"
MSG_MRSC_ONLY_CREATES = "Only Replica Create actions are supported when MultiRegionConsistency parameter is provided."
MSG_MRSC_DELETE_WITNESSES = "Update table delete operation does not include all witnesses."
MSG_MRSC_DELETE_ONE = (
    "Deletion of only one table replica is not supported for global tables with MultiRegionConsistency set to STRONG."
)
# MRSC, not observed (UNSURE: the guide lists the restriction, no capture of the text was found).
MSG_MRSC_NOT_EMPTY = "The table must be empty to add replicas with multi-Region strong consistency"  # UNSURE
MSG_MRSC_TRANSACTIONS = (  # UNSURE
    "Transactions are not supported for tables configured with multi-Region strong consistency"
)
MSG_MRSC_TTL = "Time to Live is not supported for tables configured with multi-Region strong consistency"  # UNSURE
MSG_MRSC_LSI = (  # UNSURE
    "Local secondary indexes are not supported for tables configured with multi-Region strong consistency"
)
# UpdateGlobalTable with an empty ReplicaUpdates (observed: ack-api-quirks DDB-GLOBALTABLE-004).
MSG_INVALID_PARAMETERS = "One or more parameter values were invalid"
MSG_GLOBAL_TABLES_SHARED_DB = (  # dynemu's own: --shared-db puts every region into one namespace
    "Global tables need one namespace per region; this server runs with --shared-db"
)


def _regions(regions: list[str]) -> str:
    return "[" + ", ".join(regions) + "]"  # as the service prints a list


def msg_replica_exists(table: str) -> str:  # observed (sic): ack-api-quirks DDB-TABLE-203
    return f"Failed to create a the new replica of table with name: '{table}' because one or more replicas already existed as tables."


def msg_replica_not_found(regions: list[str]) -> str:  # observed: ack-api-quirks DDB-TABLE-203
    return (
        "Update global table operation failed because one or more replicas were not part of the global table. "
        f"Please retry the request without these replicas: {_regions(regions)}."
    )


def msg_witness_not_found(regions: list[str]) -> str:
    """Observed from "...one or more witnesses" on (ack-api-quirks DDB-TABLE-260); the start is
    the replicas' message's."""
    return (
        "Update global table operation failed because one or more witnesses were not part of the global table. "
        f"Please retry the request without these witnesses: {_regions(regions)}."
    )


def msg_mrsc_regions(regions: list[str]) -> str:  # observed: ack-api-quirks DDB-TABLE-257
    return f"Unsupported Region(s) specified for global tables with MultiRegionConsistency set to STRONG: {_regions(regions)}."


def msg_global_table_not_found(name: str) -> str:
    """GlobalTableNotFoundException of the 2017.11.29 operations (observed: ack-api-quirks
    DDB-GLOBALTABLE-001/-004); DescribeGlobalTable prefixes it with "Global table not found: ".
    The replica auto scaling operations answer it as a ResourceNotFoundException."""
    return f"Global table with name: '{name}' does not exist."


def replicated_write_conflict() -> DynamoError:
    return DynamoError("ReplicatedWriteConflictException", MSG_REPLICATED_WRITE_CONFLICT, namespace=SERVICE_NS)


def global_table_not_found(message: str) -> DynamoError:
    return DynamoError("GlobalTableNotFoundException", message)


def replica_validation(detail: str) -> DynamoError:
    """``One or more parameter values were invalid: ...``"""
    return invalid_parameter(detail)


def replica_request(message: str) -> DynamoError:
    return validation(message)
