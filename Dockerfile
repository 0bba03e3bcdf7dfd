# dynemu: docker build -t dynemu . && docker run -p 8000:8000 -v dynemu-data:/data dynemu
# Flags go after the image name (docker run dynemu --in-memory); DYNEMU_* variables work too.
# DynamoDB Local's arguments work as they are, so a compose file that ran amazon/dynamodb-local
# needs only the image name changed: command: "-jar DynamoDBLocal.jar -sharedDb -dbPath ./data"
# (./data is /home/dynamodblocal/data, where such files mount their volume).
# The base is pinned to a patch release; pin its digest too (python:3.12.8-slim-bookworm@sha256:...)
# where builds must be bit-for-bit repeatable.
ARG PYTHON_IMAGE=python:3.12.8-slim-bookworm
FROM ${PYTHON_IMAGE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# Dependencies first, at the versions CI tests (constraints.txt): a change to the source
# reuses this layer. plyvel is installed on linux/amd64 only (its wheels); on arm64 and
# elsewhere dynemu keeps its data in the standard library's sqlite, so no compiler is needed.
COPY pyproject.toml constraints.txt ./
COPY docker/requirements.py docker/requirements.py
RUN python docker/requirements.py > /tmp/requirements.txt \
 && pip install -c constraints.txt -r /tmp/requirements.txt \
 && rm /tmp/requirements.txt

COPY README.md ./
COPY dynemu ./dynemu
RUN pip install --no-deps .

COPY docker/entrypoint.sh docker/healthcheck.py /usr/local/lib/dynemu/

# A non-root user owns the data volume, and DynamoDB Local's working directory (-dbPath ./data).
RUN useradd --system --uid 10001 --user-group --home-dir /data --no-create-home dynemu \
 && mkdir -p /data /home/dynamodblocal/data && chown dynemu:dynemu /data /home/dynamodblocal /home/dynamodblocal/data
WORKDIR /home/dynamodblocal
USER dynemu
VOLUME ["/data"]

ENV DYNEMU_HOST=0.0.0.0 \
    DYNEMU_PORT=8000 \
    DYNEMU_DATA_DIR=/data
EXPOSE 8000

# GET / is dynemu's health check (200 when it serves requests), on the port of its command
# line (-port, --port) or DYNEMU_PORT.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "/usr/local/lib/dynemu/healthcheck.py"]

ENTRYPOINT ["/usr/local/lib/dynemu/entrypoint.sh"]
