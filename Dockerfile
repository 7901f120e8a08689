# The robostats image for AWS Batch and Kubernetes (docs/cluster.md):
# the binary on the PATH of a small Debian, with the CA certificates its
# HTTPS and S3 requests check servers against.
#
#   docker build -t robostats .
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo install --locked --path . --root /usr/local

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /usr/local/bin/robostats /usr/local/bin/robostats
CMD ["robostats", "--help"]
