# dynemu: docker build -t dynemu . && docker run -p 8000:8000 -v dynemu-data:/data dynemu
# Flags go after the image name (docker run dynemu --in-memory); DYNEMU_* variables work too.
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

# A non-root user owns the data volume.
RUN useradd --system --uid 10001 --user-group --home-dir /data --no-create-home dynemu \
 && mkdir -p /data && chown dynemu:dynemu /data
USER dynemu
VOLUME ["/data"]

ENV DYNEMU_HOST=0.0.0.0 \
    DYNEMU_PORT=8000 \
    DYNEMU_DATA_DIR=/data
EXPOSE 8000

# GET / is dynemu's health check (200 when it serves requests). Change the port with
# DYNEMU_PORT (not --port) so that the health check follows it.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/' % os.environ.get('DYNEMU_PORT', '8000'), timeout=2)"

ENTRYPOINT ["dynemu"]
