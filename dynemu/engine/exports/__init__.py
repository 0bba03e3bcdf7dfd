"""Exports and imports in DynamoDB's own S3 layout (docs/import-export.md): codecs (a line of
each format), layout (the files of an export, written and read in a stream), history (what an
export reads from point-in-time recovery), loader (items into a table: the one reader of
ImportTable, ``dynemu import`` and ``--init``), jobs (the operations' records and runs) and
recovery (what an open finds of the imports a stopped server left)."""
