"""Auto scaling: DynamoDB's replica auto scaling operations (DescribeTableReplicaAutoScaling,
UpdateTableReplicaAutoScaling) and the Application Auto Scaling endpoint (AnyScaleFrontendService).

Sources: observed service answers (aws-controllers-k8s ack-api-quirks, DynamoDB, 2026-10-09)
for the replica operations; public reports of Application Auto Scaling's answers (cited per
entry). A text marked UNSURE has no capture: it is written in the service's style.
"""

from __future__ import annotations

from dynemu.errors.base import DynamoError

# Application Auto Scaling's error namespace (the SDKs read only what follows "#").
AAS_NS = "com.amazonaws.applicationautoscaling.model"

# --- UpdateTableReplicaAutoScaling / DescribeTableReplicaAutoScaling (observed) --------------------


def msg_autoscaling_parameters_required(table: str, missing: list[str]) -> str:
    """An update of one dimension that lacks some of MinimumUnits, MaximumUnits and
    ScalingPolicyUpdate (in the service's order: 'MaximumUnits', 'ScalingPolicyUpdate',
    'MinimumUnits'); typographic quotes around the name, as observed."""
    names = ", ".join(f"'{m}'" for m in missing)
    return (
        f"Failed to update settings for global table with name: \u2018{table}\u2019: "
        f"Parameters {names} are required unless auto scaling is being disabled."
    )


def msg_autoscaling_region_without_update(table: str, region: str) -> str:
    return (
        f"Failed to update settings for global table with name: \u2018{table}\u2019 because at least one "
        f"update parameter must be specified for region: \u2018{region}\u2019."
    )


def msg_autoscaling_unknown_regions(table: str, regions: list[str]) -> str:
    """ResourceNotFoundException; the regions as a Java list."""
    return (
        f"Failed to update settings for global table with name: \u2018{table}\u2019 because a replica does "
        f"not exist in regions: \u2018[{', '.join(regions)}]\u2019."
    )


def msg_autoscaling_unknown_indexes(table: str, indexes: list[str]) -> str:
    """ResourceNotFoundException; the index names as a Java list."""
    return (
        f"Failed to update settings for global table with name: \u2018{table}\u2019 because the global "
        f"secondary indexes with names: \u2018[{', '.join(indexes)}]\u2019 do not exist."
    )


def msg_autoscaling_on_demand(table: str, regions: list[str], parameters: list[str]) -> str:
    """An on-demand global table: every replica's region upper-cased; the parameter names are
    UpdateGlobalTableSettings' (observed for the table write and replica read updates; the
    GSI ones are UNSURE). The name's quotes are both U+2018, as observed."""
    listed = ", ".join(f"'{r.upper()}'" for r in regions)
    params = ", ".join(f"'{p}'" for p in parameters)
    return (
        f"Failed to update global table with name \u2018{table}\u2018. Replicas {listed} BillingMode is "
        f"PayPerRequest. You must convert table's BillingMode to PROVISIONED to set parameters: {params}."
    )


MSG_AUTOSCALING_NO_UPDATES = (  # UNSURE: observed as a ValidationException, its text not captured
    "At least one of ProvisionedWriteCapacityAutoScalingUpdate, GlobalSecondaryIndexUpdates "
    "or ReplicaUpdates must be provided"
)


def msg_autoscaling_duplicate_region(table: str, region: str) -> str:  # UNSURE: observed as a ValidationException
    return (
        f"Failed to update settings for global table with name: \u2018{table}\u2019 because region: "
        f"\u2018{region}\u2019 is specified more than once."
    )


def msg_aas_relayed(message: str, request_id: str) -> str:
    """An Application Auto Scaling ValidationException as DynamoDB relays it: the AWS SDK for
    Java's rendering of the exception, with AAS's own request id."""
    return (
        f"{message} (Service: AWSApplicationAutoScaling; Status Code: 400; Error Code: ValidationException; "
        f"Request ID: {request_id}; Proxy: null)"
    )


# --- Application Auto Scaling ----------------------------------------------------------------------

# observed through UpdateTableReplicaAutoScaling (ack-api-quirks, 2026-10-09)
MSG_AAS_MAX_BELOW_MIN = "Maximum capacity cannot be less than minimum capacity"


def msg_aas_target_value(value: str, low: str = "8.51592E-109", high: str = "1.174271E108") -> str:
    """Any target tracking policy's range (observed for 0.0); values in Java's Double form."""
    return f"For target tracking scaling, target value must be between '{low}' and '{high}', but was '{value}'."


def msg_aas_metric_target_value(metric: str, value: str) -> str:
    """A DynamoDB predefined metric's range, 10 to 90 (observed for 90.1 and 100.0)."""
    return f"For predefined metric type {metric}, target value must be between '10.0' and '90.0', but was '{value}'."


def msg_aas_no_target(namespace: str, resource: str, dimension: str) -> str:
    """ObjectNotFoundException (reported: ansible/ansible#40237, TerraConstructs/base#42)."""
    return f"No scalable target registered for service namespace: {namespace}, resource ID: {resource}, scalable dimension: {dimension}"


def msg_aas_no_policy(namespace: str, resource: str, dimension: str, name: str) -> str:  # UNSURE
    return (
        f"No scaling policy found for service namespace: {namespace}, resource ID: {resource}, "
        f"scalable dimension: {dimension}, policy name: {name}"
    )


# reported: pulumi/pulumi-policy-aws#11 (a resource id that is not table/<name>)
MSG_AAS_UNSUPPORTED = "Unsupported service namespace, resource type or scalable dimension"


def msg_aas_no_table(resource: str) -> str:
    """Reported: terraform-aws-modules/terraform-aws-dynamodb-table#15."""
    return f"DynamoDB table does not exist: {resource}"


def msg_aas_no_index(resource: str) -> str:  # UNSURE: the table's text, for an index
    return f"DynamoDB index does not exist: {resource}"


def msg_aas_new_target_bounds(resource: str) -> str:  # UNSURE; the rule is the API reference's
    return f"MinCapacity and MaxCapacity are required to register a new scalable target: {resource}"


MSG_AAS_STEP_SCALING = (  # UNSURE; the rule is the API reference's ("PolicyType")
    "StepScaling is not supported for service namespace: dynamodb"
)
MSG_AAS_NO_TRACKING_CONFIG = (  # UNSURE
    "TargetTrackingScalingPolicyConfiguration is required for a TargetTrackingScaling policy"
)


def msg_aas_metric_mismatch(metric: str, dimension: str) -> str:  # UNSURE
    return f"Predefined metric type {metric} is not valid for scalable dimension {dimension}"


MSG_AAS_PREDEFINED_ONLY = (  # UNSURE: a limit of dynemu's (it has no CloudWatch metrics)
    "Only a PredefinedMetricSpecification is supported for target tracking scaling of DynamoDB"
)
MSG_AAS_BAD_NEXT_TOKEN = "Invalid token"  # UNSURE


def aas_validation(message: str) -> DynamoError:
    return DynamoError("ValidationException", message, namespace=AAS_NS)


def aas_not_found(message: str) -> DynamoError:
    return DynamoError("ObjectNotFoundException", message, namespace=AAS_NS)


def aas_bad_token() -> DynamoError:
    return DynamoError("InvalidNextTokenException", MSG_AAS_BAD_NEXT_TOKEN, namespace=AAS_NS)


# --- the replica prerequisite (UpdateTable), observed: the ack-api-quirks captures above and
# hashicorp/terraform-provider-aws#13097 ------------------------------------------------------------

MSG_TABLE_WRITE_NOT_AUTOSCALED = "Table write capacity should either be Pay-Per-Request or AutoScaled."
MSG_GSI_WRITE_NOT_AUTOSCALED = "GSI write capacity should either be Pay-Per-Request or AutoScaled."
