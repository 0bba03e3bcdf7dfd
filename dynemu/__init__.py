"""dynemu: a local Amazon DynamoDB server that models partitions, capacity and throttling."""

__version__ = "0.1.0"
