FROM python:3.12-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY dynemu ./dynemu
RUN pip install --no-cache-dir .
VOLUME ["/data"]
EXPOSE 8000
ENV DYNEMU_DATA_DIR=/data
CMD ["dynemu", "--host", "0.0.0.0"]
