"""Global tables: replicas across regions, replication, multi-Region strong consistency.

Where a text was observed from the service, its source is given; the others are marked
UNSURE (no capture found; the wording follows the service's style).
"""

from __future__ import annotations

from dynemu.errors.base import SERVICE_NS, DynamoError, invalid_parameter, validation

# UpdateTable with ReplicaUpdates naming the table's own region (observed: aws/aws-cli#4906).
MSG_LOCAL_REGION_REPLICA = (
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
MSG_GLOBAL_TABLE_NOT_FOUND = "Global table not found"  # UNSURE
# ReplicatedWriteConflictException: the API reference's description of the error.
MSG_REPLICATED_WRITE_CONFLICT = (
    "The request was rejected because one or more items in the request are being modified by a request in another Region."
)
MSG_MRSC_TRANSACTIONS = (  # UNSURE
    "Transactions are not supported for tables configured with multi-Region strong consistency"
)
MSG_MRSC_REGION_COUNT = (  # UNSURE
    "A global table with multi-Region strong consistency must have exactly three Regions: "
    "three replicas, or two replicas and one witness"
)
MSG_MRSC_NOT_EMPTY = "The table must be empty to add replicas with multi-Region strong consistency"  # UNSURE
MSG_CONSISTENCY_FIXED = "The consistency mode of a global table cannot be changed once it has replicas"  # UNSURE
MSG_WITNESS_WITHOUT_STRONG = "A witness can only be added to a global table with multi-Region strong consistency"  # UNSURE
MSG_GLOBAL_TABLES_SHARED_DB = (  # dynemu's own: --shared-db puts every region into one namespace
    "Global tables need one namespace per region; this server runs with --shared-db"
)


def msg_replica_exists(table: str) -> str:  # UNSURE
    return f"Failed to create a the new replica of table with name: '{table}' because one or more replicas already existed as tables."


def msg_replica_not_found(region: str) -> str:  # UNSURE
    return f"Replica does not exist in region {region}"


def msg_mrsc_region_set(region: str) -> str:  # UNSURE
    return f"Region {region} is not in the same multi-Region strong consistency Region set as the table"


def replicated_write_conflict() -> DynamoError:
    return DynamoError("ReplicatedWriteConflictException", MSG_REPLICATED_WRITE_CONFLICT, namespace=SERVICE_NS)


def global_table_not_found() -> DynamoError:
    return DynamoError("GlobalTableNotFoundException", MSG_GLOBAL_TABLE_NOT_FOUND)


def replica_validation(detail: str) -> DynamoError:
    """``One or more parameter values were invalid: ...``"""
    return invalid_parameter(detail)


def replica_request(message: str) -> DynamoError:
    return validation(message)
