"""CloudWatch's errors, for dynemu's CloudWatch endpoint (GetMetricData, GetMetricStatistics,
ListMetrics, DescribeInsightRules, GetInsightRuleReport).

Types are botocore's cloudwatch model's (``InvalidParameterValueException``, ...); each has a
query-protocol code (``InvalidParameterValue``, ...) that the query protocol's XML carries and
that the JSON and CBOR protocols send in the ``x-amzn-query-error`` header (the model is
``awsQueryCompatible``), which is what the SDKs report as the error's code. Request-shape
failures are Coral's ``ValidationException`` (code ``ValidationError``), with the same
"N validation errors detected: ..." text as DynamoDB's (a reported CloudWatch answer:
ansible/ansible-modules-core#4540, "Value '30' at 'period' failed to satisfy constraint").

Sources per entry; a text marked UNSURE has no capture of the service's answer and is written
in its style.
"""

from __future__ import annotations

from dynemu.errors.base import DynamoError

CW_NS = "com.amazonaws.cloudwatch"  # UNSURE: the SDKs read only what follows "#"
# model type -> the query protocol's code (botocore's cloudwatch model, "error": {"code"})
CW_QUERY_CODES = {
    "InvalidParameterValueException": "InvalidParameterValue",
    "InvalidParameterCombinationException": "InvalidParameterCombination",
    "MissingRequiredParameterException": "MissingParameter",
    "InvalidNextToken": "InvalidNextToken",
    "ResourceNotFoundException": "ResourceNotFoundException",
    "ValidationException": "ValidationError",
    "SerializationException": "ValidationError",  # UNSURE: CloudWatch's answer to a body it cannot read
    "InternalServiceFault": "InternalServiceError",
    "InternalServerError": "InternalServiceError",
    "UnknownOperationException": "InvalidAction",  # the query protocol's code for an unknown Action
    "MissingAuthenticationTokenException": "MissingAuthenticationToken",
}

# StartTime equal to EndTime: reported for both operations (telegraf#2022: GetMetricStatistics,
# InvalidParameterValue; yet-another-cloudwatch-exporter#729: GetMetricData, ValidationError).
MSG_CW_EQUAL_TIMES = "The parameter StartTime must not equal parameter EndTime."
MSG_CW_START_AFTER_END = "The parameter StartTime must be less than the parameter EndTime."  # UNSURE
# More than 1,440 datapoints (API_GetMetricStatistics.html; cloud-custodian#7683 quotes it).
MSG_CW_TOO_MANY_DATAPOINTS = (
    "You have requested up to {n} datapoints, which exceeds the limit of 1440. "
    "You may reduce the datapoints requested by increasing Period, or decreasing the time range."
)
# Periods: 1, 5, 10, 20, 30 or a multiple of 60 (API_MetricStat.html).
MSG_CW_BAD_PERIOD = (  # UNSURE: the rule is the API reference's, the wording dynemu's
    "The parameter {name} must be 1, 5, 10, 20, 30, or a multiple of 60."
)
MSG_CW_RULE_PERIOD = "The parameter Period must be a multiple of 60."  # UNSURE
MSG_CW_NO_STATISTICS = "Must specify either Statistics or ExtendedStatistics."  # UNSURE
MSG_CW_BAD_STAT = "The value {stat} for parameter {name} is not a valid statistic."  # UNSURE past "parameter"
# "The collection MetricData must not have a size greater than 20." (PutMetricData, reported:
# aknostic/elasticsearch-cloudwatch#3); the same form for MetricDataQueries' 500
# (API_GetMetricData.html).
MSG_CW_TOO_MANY_QUERIES = "The collection MetricDataQueries must not have a size greater than 500."
# Reported answers: aws-solutions/quota-monitor-for-aws#171 (ValidationError) and
# influxdata/telegraf#5420 (ValidationError, one line per bad Id, joined by newlines).
MSG_CW_DUPLICATE_ID = "The values for parameter id in MetricDataQueries are not unique."
MSG_CW_BAD_ID = (
    "The value {id} for parameter MetricDataQueries.member.{n}.Id is not matching the expected pattern "
    "^[a-z][a-zA-Z0-9_]*$."
)
MSG_CW_QUERY_NEEDS_ONE = (  # UNSURE: the rule is the API reference's (MetricDataQuery)
    "Exactly one element of the MetricStat and Expression fields must be set for "
    "MetricDataQueries.member.{n}."
)
MSG_CW_METRIC_MATH = (  # UNSURE: a limit of dynemu's, refused as CloudWatch refuses a query it cannot run
    "The parameter MetricDataQueries.member.{n}.Expression is not supported: dynemu serves "
    "MetricStat queries only (no metric math or Metrics Insights)."
)
MSG_CW_NO_RETURN_DATA = "No query in MetricDataQueries has ReturnData set to true."  # UNSURE
MSG_CW_BAD_TOKEN = "The service cannot read the provided NextToken."  # UNSURE
MSG_CW_NO_RULE = "Rule {name} does not exist."  # UNSURE
MSG_CW_MAX_CONTRIBUTORS = "The parameter MaxContributorCount must be between 1 and 100."  # UNSURE


def cw_invalid_value(message: str) -> DynamoError:
    return DynamoError("InvalidParameterValueException", message, namespace=CW_NS)


def cw_invalid_combination(message: str) -> DynamoError:
    return DynamoError("InvalidParameterCombinationException", message, namespace=CW_NS)


def cw_missing_parameter(message: str) -> DynamoError:
    return DynamoError("MissingRequiredParameterException", message, namespace=CW_NS)


def cw_validation(message: str) -> DynamoError:
    """GetMetricData's checks answer ValidationError (yet-another-cloudwatch-exporter#729)."""
    return DynamoError("ValidationException", message, namespace=CW_NS)


def cw_bad_token() -> DynamoError:
    return DynamoError("InvalidNextToken", MSG_CW_BAD_TOKEN, namespace=CW_NS)


def cw_internal() -> DynamoError:
    """CloudWatch's own failure (the model's InternalServiceFault, code InternalServiceError)."""
    return DynamoError("InternalServiceFault", "", namespace=CW_NS, status=500)


def cw_no_rule(name: str) -> DynamoError:
    return DynamoError("ResourceNotFoundException", MSG_CW_NO_RULE.format(name=name), namespace=CW_NS, status=404)
