"""Messages of Time to Live (engine/ttl.py).

Part of the catalogue of messages (``dynemu.errors``): every text dynemu says is defined once.
"""

from __future__ import annotations

# engine/ttl.py
MSG_ALREADY_ENABLED = "TimeToLive is already enabled"
MSG_ALREADY_DISABLED = "TimeToLive is already disabled"
MSG_OTHER_ATTRIBUTE = "TimeToLive is active on a different AttributeName: current AttributeName is {}"
MSG_COOLDOWN = "Time to live has been modified multiple times within a fixed interval"
