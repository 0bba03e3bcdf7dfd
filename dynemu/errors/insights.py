"""Messages of the hot-key views and Contributor Insights (api/admin/api.py, dashboard.py,
api/operations/insights.py)."""

# the admin API under /_dynemu/: dynemu's own, answered as {"error": message}
MSG_ADMIN_BAD_WINDOW = "window must be a number of minutes from 1 to {most}, or all"
