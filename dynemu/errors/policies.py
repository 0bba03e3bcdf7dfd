"""Messages of resource-based policies (engine/resource_policies.py). The service's texts
are not public; each is marked UNSURE and listed in issue 27's report."""

from __future__ import annotations

from dynemu.errors.base import DynamoError
from dynemu.errors.tags import access_denied

MAX_POLICY_TEXT = "20 KB"


def policy_not_found(arn: str) -> DynamoError:
    # UNSURE: PolicyNotFoundException, "The operation tried to access a nonexistent resource-based
    # policy" (API reference)
    return DynamoError("PolicyNotFoundException", f"Resource-based policy not found for the provided ResourceArn: {arn}")


def revision_mismatch(arn: str, expected: str) -> DynamoError:
    # UNSURE: "If you specify an ExpectedRevisionId that doesn't match the current policy's
    # RevisionId, the PolicyNotFoundException will be returned" (API_PutResourcePolicy)
    return DynamoError(
        "PolicyNotFoundException",
        f"Resource-based policy not found for the provided ResourceArn: {arn} and revision id: {expected}",
    )


def policy_resource_not_found(arn: str) -> DynamoError:
    # UNSURE
    return DynamoError("ResourceNotFoundException", f"Requested resource not found: ResourceArn: {arn} not found")


def msg_policy_too_large(size: int) -> str:
    # UNSURE: "The maximum size supported for a resource-based policy document is 20 KB. DynamoDB
    # counts whitespaces" (API_PutResourcePolicy)
    return f"Resource-based policy document size {size} bytes exceeds the maximum of {MAX_POLICY_TEXT} (20480 bytes)"


MSG_POLICY_NOT_JSON = "Invalid policy document: the document is not valid JSON"  # UNSURE
MSG_POLICY_NOT_OBJECT = "Invalid policy document: the document must be a JSON object"  # UNSURE
MSG_POLICY_NO_STATEMENT = "Invalid policy document: Statement is missing"  # UNSURE
MSG_POLICY_BAD_EFFECT = "Invalid policy document: each Statement needs an Effect of Allow or Deny"  # UNSURE
MSG_POLICY_NO_ACTION = "Invalid policy document: each Statement needs an Action or NotAction"  # UNSURE
MSG_POLICY_NO_PRINCIPAL = "Invalid policy document: each Statement needs a Principal or NotPrincipal"  # UNSURE


def access_denied_by_policy(caller: str, action: str, resource: str) -> DynamoError:
    # AWS's wording for an explicit deny ("User: <arn> is not authorized to perform: <action> on
    # resource: <arn> with an explicit deny in a resource-based policy", IAM troubleshooting guide)
    return access_denied(
        f"User: {caller} is not authorized to perform: {action} on resource: {resource} "
        "with an explicit deny in a resource-based policy"
    )
