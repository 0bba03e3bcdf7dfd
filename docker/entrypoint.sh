#!/bin/sh
# The image's entrypoint: dynemu with the arguments given after the image name, in dynemu's
# own form (--in-memory) or in DynamoDB Local's, as amazon/dynamodb-local takes them
# (-jar DynamoDBLocal.jar -sharedDb -dbPath ./data): the Java launcher's words are ignored.
exec dynemu "$@"
