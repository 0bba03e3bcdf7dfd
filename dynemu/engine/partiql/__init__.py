"""PartiQL for DynamoDB: tokenizer -> parser (statements over the expression engine's nodes)
-> translation into the engine's requests (keys, items, condition trees, update actions,
projections, key conditions). Executing them is the operations layer's: the same write and
read paths as PutItem, UpdateItem, DeleteItem, Query, Scan and the transactions."""
