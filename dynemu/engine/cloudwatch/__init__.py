"""DynamoDB's CloudWatch metrics and Contributor Insights rule reports, computed from what the
capacity model records (engine/capacity/history.py, engine/insights.py): ``metrics`` (the
AWS/DynamoDB catalogue, statistics and period alignment), ``rule_reports`` (the rules and their
reports)."""
