"""Messages of HTTP and the protocol (api/http.py, api/protocol.py, api/sigv4.py, the admin API).

Part of the catalogue of messages (``dynemu.errors``): every text dynemu says is defined once.
"""

from __future__ import annotations

MSG_NOT_IMPLEMENTED = "dynemu does not implement {operation} yet"
# Invalid base64 in a B or BS value (SerializationException): Coral names the value, then the
# reason (errors.MSG_BASE64_*), as the service answers (reported in victorquinn/dynasty#30).
MSG_NOT_A_BLOB = "'{value}' can not be converted to a Blob: {detail}"
# Signature Version 4 (api/sigv4.py), as the service words them ("Signing AWS API requests",
# IAM User Guide; the IncompleteSignature and skew texts as recorded from the service).
MSG_SIGNATURE_MISMATCH = (
    "The request signature we calculated does not match the signature you provided. "
    "Check your AWS Secret Access Key and signing method. Consult the service documentation for details."
)
MSG_UNKNOWN_ACCESS_KEY = "The security token included in the request is invalid."
# A credential scoped to a region that does not exist (InvalidSignatureException; the region
# shown cut to 64 characters), as the service answers (engine/namespaces.py).
MSG_INVALID_REGION = "Credential should be scoped to a valid region, not '{region}'."
MSG_SIGNATURE_EXPIRED = "Signature expired: {signed} is now earlier than {earliest} ({now} - 15 min.)"
MSG_SIGNATURE_NOT_YET_CURRENT = "Signature not yet current: {signed} is still later than {latest} ({now} + 15 min.)"
MSG_AUTH_PARAMETER_MISSING = "Authorization header requires '{parameter}' parameter. "
MSG_AUTH_DATE_MISSING = "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. "
MSG_AUTH_INCOMPLETE = "{missing}Authorization={authorization}"
MSG_AUTH_DATE_FORMAT = (
    "Date must be in ISO-8601 'basic format'. Got '{date}'. See http://en.wikipedia.org/wiki/ISO_8601"
)
MSG_AUTH_ALGORITHM = "Unsupported AWS 'algorithm': '{algorithm}' (only AWS4-HMAC-SHA256 for now). "
MSG_AUTH_CREDENTIAL_FORMAT = (
    "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, "
    "got '{credential}'"
)
# the admin API and dashboard under /_dynemu/ (api/admin/api.py, admin_guard.py, dashboard.py):
# dynemu's own, answered as {"error": message}
MSG_ADMIN_BAD_CLOCK_BODY = 'the body must be JSON such as {"advance": 60}'
MSG_ADMIN_BAD_ADVANCE = "advance must be a number of seconds >= 0"
MSG_ADMIN_CLOCK_NOT_VIRTUAL = "the clock is {mode}; only a virtual clock (--clock virtual) can be advanced"
MSG_ADMIN_NO_TABLE = "table not found: {table}"
MSG_ADMIN_NO_INDEX = "the table has no global secondary index {index}"
MSG_ADMIN_BAD_KEY = "key must be the table's (or the index's) key as DynamoDB JSON, such as {{\"pk\": {{\"S\": \"a\"}}}}: {detail}"
MSG_ADMIN_NO_INDEX_TRAFFIC = "the table has no global secondary index {index} with traffic"
MSG_ADMIN_BAD_SINCE = "since must be a number of epoch seconds"
MSG_ADMIN_FROM_PAGE = (
    "the admin API refuses requests from web pages (Origin {origin!r}); name the origin with --cors to allow it"
)
MSG_ADMIN_TOKEN = "the admin API needs the token given by --admin-token (Authorization: Bearer ... or {header})"
MSG_ADMIN_NOT_JSON = "admin API requests that change state must be Content-Type: application/json"
# start-up (not a DynamoDB message): --verify-signatures with nothing to verify against
MSG_NO_CREDENTIALS = (
    "--verify-signatures needs credentials: give --credentials-file or set "
    "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
)
MSG_ADMIN_BAD_SNAPSHOT_NAME = (
    'the body must be JSON such as {"name": "fixtures"}: a snapshot name is 1 to 128 letters, digits, '
    "'.', '_' or '-', not starting with '.'"
)
MSG_ADMIN_NO_SNAPSHOT = "snapshot not found: {name}"
MSG_ADMIN_NO_NAMESPACE = "namespace not found: {name}"
MSG_LOG_REQUESTS_FILE = "--log-requests {path}: cannot open the file: {reason}"
