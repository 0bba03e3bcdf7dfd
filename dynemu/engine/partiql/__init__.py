"""PartiQL for DynamoDB: tokenizer -> grammar (a syntax tree, DynamoDB's syntax errors) ->
parser (the statement it means, DynamoDB's refusals) -> translation into the engine's requests
(keys, items, condition trees, update actions, projections, key conditions). Executing them is
the operations layer's: the same write and read paths as PutItem, UpdateItem, DeleteItem,
Query, Scan and the transactions. docs/rules.md, "PartiQL"."""
