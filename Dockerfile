# svc: the engine with every package (@svc/all), as a non-root container.
#   docker build -t svc .
#   docker run --rm -p 4195:4195 -v "$PWD/pipeline.yaml:/config/pipeline.yaml:ro" svc
# The image installs the packed workspaces (npm pack) exactly as a user installs them from npm;
# engine/src/cli/install-from-tarballs.test.ts runs this file's ENTRYPOINT, CMD and HEALTHCHECK
# the same way on the same tarballs (there is no Docker daemon on the build machine).

FROM node:24.22-bookworm-slim AS build
WORKDIR /src
COPY . .
# npm ci runs the root prepare script: tsc -b builds every workspace.
RUN npm ci --no-audit --no-fund && mkdir /pkgs && npm pack --workspaces --pack-destination /pkgs

FROM node:24.22-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /pkgs /pkgs
RUN npm install --omit=dev --no-audit --no-fund /pkgs/*.tgz \
    && rm -rf /pkgs /root/.npm \
    && ln -s /app/node_modules/.bin/engine /usr/local/bin/engine \
    && mkdir -p /config /data \
    && chown node:node /data
# The node image's unprivileged user (uid 1000); /data is its working directory (hub data, files).
USER node
WORKDIR /data
EXPOSE 4195
# /ready answers 200 once every input and output is connected. SVC_READY_URL when the config's
# http.address is not the default port.
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
    CMD ["node", "-e", "fetch(process.env.SVC_READY_URL || 'http://127.0.0.1:4195/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["engine"]
CMD ["-c", "/config/pipeline.yaml"]
