# proofload's image: the Debian package built from this tree, installed on debian:12-slim.
#   docker build -t registry.example.com/proofload:0.1.0 .
# The build stage needs the network for Debian's packages and uPlot from npm; the runtime stage
# takes its libraries from Debian through the package's Depends (docs/distributed.md).

FROM debian:12 AS build
WORKDIR /src
# Only what the build needs: the bootstrap's --build-only list (no servers, browsers, fuzzers).
COPY scripts/bootstrap scripts/bootstrap
COPY src/report/html/vendor/package.json src/report/html/vendor/package-lock.json \
     src/report/html/vendor/
RUN apt-get update -qq && ./scripts/bootstrap --build-only && rm -rf /var/lib/apt/lists/*
COPY . .
RUN make package BUILD=/build && cp /build/package/proofload_*.deb /

FROM debian:12-slim
COPY --from=build /proofload_*.deb /tmp/
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends /tmp/proofload_*.deb \
 && rm -rf /var/lib/apt/lists/* /tmp/proofload_*.deb \
 && useradd --uid 10001 --create-home --shell /usr/sbin/nologin proofload
# The pods of `proofload k8s job` run as this user; their results go to /results.
USER 10001:10001
WORKDIR /home/proofload
ENTRYPOINT ["proofload"]
