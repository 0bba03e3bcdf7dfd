"""DynamoError, the one exception type of dynemu, its factories, and the catalogue of every
message dynemu writes, each defined once.

Raised anywhere (engine, validation, protocol); only ``dynemu.api.protocol`` turns it into the
wire form ``{"__type": "<namespace>#<Name>", "message": "..."}``. The catalogue is split by the
layer that speaks (one module each, below); every name is read as ``errors.<NAME>``. Wording is
DynamoDB's (each entry cites the page that shows it) and tests assert the full strings. This
package imports nothing else from dynemu.
"""

# ruff: noqa: F401, F403
from dynemu.errors.autoscaling import *
from dynemu.errors.backups import *
from dynemu.errors.base import *
from dynemu.errors.cloudwatch import *
from dynemu.errors.exports import *
from dynemu.errors.expressions import *
from dynemu.errors.http import *
from dynemu.errors.insights import *
from dynemu.errors.items import *
from dynemu.errors.limits import *
from dynemu.errors.partiql import *
from dynemu.errors.policies import *
from dynemu.errors.reads import *
from dynemu.errors.replication import *
from dynemu.errors.requests import *
from dynemu.errors.storage import *
from dynemu.errors.streams import *
from dynemu.errors.tables import *
from dynemu.errors.tags import *
from dynemu.errors.transactions import *
from dynemu.errors.ttl import *
from dynemu.errors.vectors import *
